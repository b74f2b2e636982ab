import Foundation

/// What a device remembers about one app between launches, beyond what the store keeps:
/// the storefront the app last saw, refunds already announced, interrupted purchases the app finished,
/// and the app's promotion overrides. Kept as JSON in `StoreKit/state.json` of the app's directory.
struct DeviceState: Codable, Sendable, Equatable {
    /// The storefront the payment queue last reported; `nil` before the first look.
    var storefront: String?
    /// Whether the account could make payments when the queue last looked; `nil` before the first look.
    var canMakePayments: Bool?
    /// Whether ``announcedRevocations`` holds the refunds that predate the device's first look.
    var revocationsBaselined = false
    /// Transactions whose refund or revocation the app has been told about.
    var announcedRevocations: Set<UInt64> = []
    /// Interrupted purchases whose failed transaction the app finished; they come back once resolved.
    var finishedInterruptions: Set<UInt64> = []
    /// `SKProductStorePromotionVisibility` raw values by product identifier.
    var promotionVisibility: [String: Int] = [:]
    /// The overridden promotion order, product identifiers.
    var promotionOrder: [String] = []
    /// The StoreKit 2 messages the app was given: reason, subscription and period, so each reaches it once.
    var deliveredMessages: Set<String> = []

    init() {}

    /// Reads a state file; a member an older version did not write takes its default, so nothing the file holds is lost.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storefront = try container.decodeIfPresent(String.self, forKey: .storefront)
        canMakePayments = try container.decodeIfPresent(Bool.self, forKey: .canMakePayments)
        revocationsBaselined = try container.decodeIfPresent(Bool.self, forKey: .revocationsBaselined) ?? false
        announcedRevocations = try container.decodeIfPresent(Set<UInt64>.self, forKey: .announcedRevocations) ?? []
        finishedInterruptions = try container.decodeIfPresent(Set<UInt64>.self, forKey: .finishedInterruptions) ?? []
        promotionVisibility = try container.decodeIfPresent([String: Int].self, forKey: .promotionVisibility) ?? [:]
        promotionOrder = try container.decodeIfPresent([String].self, forKey: .promotionOrder) ?? []
        deliveredMessages = try container.decodeIfPresent(Set<String>.self, forKey: .deliveredMessages) ?? []
    }
}

/// The device state of one app directory, shared by every object of the process that uses it.
final class DeviceStateStore: Sendable {
    private let file: URL
    private let state: Locked<DeviceState?>

    private init(file: URL) {
        self.file = file
        state = Locked(nil)
    }

    /// The store for an app directory; one instance per directory in a process.
    static func forAppDirectory(_ directory: URL) -> DeviceStateStore {
        let file = directory.appendingPathComponent("StoreKit/state.json").standardizedFileURL
        return registry.withLock { stores in
            if let store = stores[file.path] { return store }
            let store = DeviceStateStore(file: file)
            stores[file.path] = store
            return store
        }
    }

    private static let registry = Locked<[String: DeviceStateStore]>([:])

    /// The current state.
    var current: DeviceState {
        state.withLock { state in
            if state == nil { state = load() }
            return state!
        }
    }

    /// Changes the state and saves it when it changed.
    @discardableResult
    func update<Result>(_ change: (inout DeviceState) -> Result) -> Result {
        state.withLock { state in
            var value = state ?? load()
            let before = value
            let result = change(&value)
            state = value
            if value != before { save(value) }
            return result
        }
    }

    private func load() -> DeviceState {
        guard let data = try? Data(contentsOf: file), let state = try? JSONDecoder().decode(DeviceState.self, from: data) else {
            return DeviceState()
        }
        return state
    }

    private func save(_ state: DeviceState) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(state) else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: file, options: .atomic)
    }
}
