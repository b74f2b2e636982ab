import Foundation

/// One shared instance per class, for StoreKit's `default()` class methods, which return `Self`.
///
/// `SKPaymentQueue.default()` gives the process's queue; a test double's `MockQueue.default()` gives one
/// `MockQueue`, made on first use with the class's `init()`. Keyed by the class, so the compiler checks every
/// instance it hands out.
final class SharedInstances: Sendable {
    private let instances = Locked<[ObjectIdentifier: any Sendable]>([:])

    /// The shared instance of `type`, made with `make` on first use.
    func instance<Instance: AnyObject & Sendable>(of type: Instance.Type, make: () -> Instance) -> Instance {
        instances.withLock { instances in
            if let existing = instances[ObjectIdentifier(type)] as? Instance { return existing }
            let made = make()
            instances[ObjectIdentifier(type)] = made
            return made
        }
    }
}
