import AppStoreEngine
public import Foundation

/// The App Store storefront of the customer's account: the country and currency purchases are made in.
public struct Storefront: Identifiable, Equatable, Hashable, Sendable {
    /// Apple's numeric identifier of the storefront (`143441` for the United States).
    public let id: String
    /// The country, ISO 3166-1 alpha-3 (`USA`).
    public let countryCode: String

    init(id: String, countryCode: String) {
        self.id = id
        self.countryCode = countryCode
    }

    init?(countryCode: String) {
        guard let known = AppStoreEngine.Storefront.named(countryCode) else { return nil }
        self.init(id: known.id, countryCode: known.countryCode)
    }

    /// The storefront's currency.
    public var currency: Locale.Currency? {
        AppStoreEngine.Storefront.named(countryCode).map { Locale.Currency($0.currency) }
    }

    /// The customer's storefront now; `nil` when the store cannot be reached.
    public static var current: Storefront? {
        get async {
            guard let device = try? StoreKitDevice.current() else { return nil }
            let accountID = device.environment.accountID
            guard let account = try? await device.call({ connection throws(StoreError) in try await connection.account(accountID) }) else { return nil }
            return Storefront(countryCode: account.storefront)
        }
    }

    /// The customer's storefront each time it changes. The sequence never ends on its own.
    public static var updates: Storefront.Storefronts {
        let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
        return Storefronts { continuation in
            guard let device = try? device.get() else { return }
            let accountID = device.environment.accountID
            let changes = await device.environment.connection.changes()
            var last = try? await device.environment.connection.account(accountID).storefront
            await device.listening {
                for await _ in changes {
                    guard let storefront = try? await device.environment.connection.account(accountID).storefront, storefront != last else { continue }
                    last = storefront
                    if let value = Storefront(countryCode: storefront) { continuation.yield(value) }
                }
            }
        }
    }

    /// An asynchronous sequence of storefronts.
    public struct Storefronts: AsyncSequence, Sendable {
        /// A storefront.
        public typealias Element = Storefront

        private let produce: @Sendable (AsyncStream<Element>.Continuation) async -> Void

        init(_ produce: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void) {
            self.produce = produce
        }

        /// Iterates the sequence.
        public typealias AsyncIterator = AsyncStream<Element>.Iterator

        /// Starts iterating.
        public func makeAsyncIterator() -> AsyncIterator {
            producedStream(produce).makeAsyncIterator()
        }
    }
}
