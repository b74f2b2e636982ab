import AppStoreEngine
import AppStoreFormats
public import Foundation

/// The signed record of the customer's copy of the app: when they first got it, which version, in which
/// environment.
public struct AppTransaction: Equatable, Hashable, Sendable, CustomDebugStringConvertible {
    /// The app's App Store identifier; `nil` outside the production App Store.
    public let appID: UInt64?
    /// The App Store identifier of the app's version; `nil` outside the production App Store.
    public let appVersionID: UInt64?
    /// The app's version (`CFBundleVersion`).
    public let appVersion: String
    /// The app's bundle identifier.
    public let bundleID: String
    /// The version the customer first got.
    public let originalAppVersion: String
    /// When the customer first got the app.
    public let originalPurchaseDate: Date
    /// When the customer pre-ordered the app, if they did.
    public let preorderDate: Date?
    /// The server environment that signed the app transaction.
    public let environment: AppStore.Environment
    /// When the App Store signed this copy.
    public let signedDate: Date
    /// The hash that ties the app transaction to the device it was signed for.
    public let deviceVerification: Data
    /// The nonce hashed into ``deviceVerification``.
    public let deviceVerificationNonce: UUID
    /// The app download's transaction identifier, the same in every transaction of the account in the app.
    public let appTransactionID: String
    /// The platform the customer first got the app on.
    public let originalPlatform: AppStore.Platform
    /// The store the customer got the app from: the App Store's consumer store unless the payload names another.
    public let storeType: AppTransaction.StoreType
    let token: SignedToken

    /// The store an app was obtained from. Raw values are the App Store's `storeType`, of which Apple documents only
    /// `CONSUMER`; another value reads as a store type of that raw value.
    public struct StoreType: RawRepresentable, Hashable, Sendable {
        /// The App Store customers buy from.
        public static let consumer = StoreType(rawValue: "CONSUMER")
        /// The App Store's name.
        public let rawValue: String
        /// A store type by its App Store name.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// The signed payload, as JSON.
    public var jsonRepresentation: Data { token.payload }

    /// The signed payload.
    public var debugDescription: String { String(decoding: token.payload, as: UTF8.self) }

    init?(token: SignedToken) {
        guard let payload = try? AppStoreJSON.decode(AppTransactionPayload.self, from: token.payload),
              let bundleID = payload.bundleId, let signedDate = payload.receiptCreationDate
        else { return nil }
        appID = payload.appAppleId.map { UInt64($0) }
        appVersionID = payload.versionExternalIdentifier.map { UInt64($0) }
        appVersion = payload.applicationVersion ?? ""
        self.bundleID = bundleID
        originalAppVersion = payload.originalApplicationVersion ?? ""
        originalPurchaseDate = payload.originalPurchaseDate ?? signedDate
        preorderDate = payload.preorderDate
        environment = AppStore.Environment(rawValue: payload.rawReceiptType ?? AppStore.Environment.sandbox.rawValue)
        self.signedDate = signedDate
        deviceVerification = payload.deviceVerification.flatMap { Data(base64Encoded: $0) } ?? Data()
        deviceVerificationNonce = payload.deviceVerificationNonce ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        appTransactionID = payload.appTransactionId ?? ""
        originalPlatform = AppStore.Platform(rawValue: payload.rawOriginalPlatform ?? AppStore.Platform.iOS.rawValue)
        storeType = StoreType(rawValue: payload.storeType ?? StoreType.consumer.rawValue)
        self.token = token
    }

    /// The app transaction of the customer's copy of the app, signed for this device.
    ///
    /// - Throws: ``StoreKitError`` when the store cannot answer.
    public static var shared: VerificationResult<AppTransaction> {
        get async throws { try await refresh() }
    }

    /// Asks the App Store for a fresh app transaction.
    ///
    /// - Throws: ``StoreKitError`` when the store cannot answer.
    public static func refresh() async throws -> VerificationResult<AppTransaction> {
        let device = try StoreKitDevice.current()
        try device.throwSimulatedFailure(for: .appTransaction)
        let (accountID, bundleID, deviceID) = (device.environment.accountID, device.environment.bundleID, device.environment.deviceID)
        let token = try await device.call { connection throws(StoreError) in
            try await connection.signedAppTransaction(accountID: accountID, bundleID: bundleID, deviceID: deviceID)
        }
        guard let result = await device.verifyAppTransaction(token) else { throw StoreKitError.unknown }
        return result
    }
}

extension AppTransaction: SignedValue {
    package var signedToken: SignedToken { token }
}
