import AppStoreEngine
public import Foundation

/// The App Store as the app sees it: whether the customer can pay, syncing purchases, the device's verification
/// identifier, and the sheets StoreKit shows.
public enum AppStore: Sendable {
    /// Whether the customer may make payments: `false` for an account parental controls restrict, or when the
    /// process has no store.
    public static var canMakePayments: Bool {
        guard let bound = StoreKitDevice.bound else { return SKPaymentQueue.canMakePayments() }
        return DeviceStateStore.forAppDirectory(bound.appDirectory).current.canMakePayments ?? true
    }

    /// The identifier signed data hashes with its nonce into `deviceVerification`: the device's identifier.
    public static var deviceVerificationID: UUID? {
        (try? StoreKitDevice.current())?.environment.deviceID
    }

    /// Brings the device's transactions up to date with the App Store, as "Restore Purchases" does. The App Store
    /// already holds every purchase, so this checks that it can be reached.
    ///
    /// - Throws: ``StoreKitError`` when the store cannot be reached.
    public static func sync() async throws {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .appStoreSync)
        let accountID = device.environment.accountID
        _ = try await device.call { connection throws(StoreError) in try await connection.account(accountID) }
    }

    /// The server environment that signs the App Store's data. Raw values are the App Store's.
    public struct Environment: RawRepresentable, Hashable, Sendable {
        /// The App Store.
        public static let production = Environment(rawValue: "Production")
        /// The sandbox.
        public static let sandbox = Environment(rawValue: "Sandbox")
        /// StoreKit Testing in Xcode.
        public static let xcode = Environment(rawValue: "Xcode")
        /// The App Store's name.
        public let rawValue: String
        /// An environment by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// The platform an app was first bought on. Raw values are the App Store's.
    public struct Platform: RawRepresentable, Hashable, Sendable {
        /// iOS, iPadOS and Mac Catalyst.
        public static let iOS = Platform(rawValue: "iOS")
        /// macOS.
        public static let macOS = Platform(rawValue: "macOS")
        /// tvOS.
        public static let tvOS = Platform(rawValue: "tvOS")
        /// visionOS.
        public static let visionOS = Platform(rawValue: "visionOS")
        /// The App Store's name.
        public let rawValue: String
        /// A platform by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}
