public import Foundation

/// The app's signed purchase record (`signedAppTransactionInfo`, StoreKit 2 `AppTransaction`), with Apple's
/// field names.
///
/// The environment lives in `receiptType`, and verifiers check the chain at `receiptCreationDate` (there is no
/// `signedDate`), as Apple's `SignedDataVerifier` does.
public struct AppTransactionPayload: Codable, Hashable, Sendable {
    /// The raw `receiptType` value (the environment); see ``receiptType``.
    public var rawReceiptType: String?
    /// The app's Apple ID (absent or 0 outside production).
    public var appAppleId: Int64?
    /// The app's bundle identifier.
    public var bundleId: String?
    /// The app version (CFBundleVersion).
    public var applicationVersion: String?
    /// The App Store's identifier of the app version.
    public var versionExternalIdentifier: Int64?
    /// When the App Store created this record. Verifiers check the certificate chain at this date.
    public var receiptCreationDate: Date?
    /// When the customer first got the app.
    public var originalPurchaseDate: Date?
    /// The app version the customer first got.
    public var originalApplicationVersion: String?
    /// Base64 SHA-384 proving the record belongs to the device; on-device copies only.
    public var deviceVerification: String?
    /// The nonce used in ``deviceVerification``.
    public var deviceVerificationNonce: UUID?
    /// When the customer pre-ordered the app.
    public var preorderDate: Date?
    /// The app download's transaction identifier.
    public var appTransactionId: String?
    /// The raw `originalPlatform` value; see ``originalPlatform``.
    public var rawOriginalPlatform: String?
    /// The store the customer got the app from (`storeType`); Apple's App Store Server API names only `CONSUMER`.
    public var storeType: String?

    /// Creates an empty payload in the given environment; set the other properties before signing.
    public init(receiptType: AppStoreEnvironment = .sandbox) {
        self.rawReceiptType = receiptType.rawValue
    }

    /// The environment (`receiptType`).
    public var receiptType: AppStoreEnvironment? {
        get { rawReceiptType.flatMap(AppStoreEnvironment.init(rawValue:)) }
        set { rawReceiptType = newValue?.rawValue }
    }

    /// The platform of the first purchase (`originalPlatform`).
    public var originalPlatform: PurchasePlatform? {
        get { rawOriginalPlatform.flatMap(PurchasePlatform.init(rawValue:)) }
        set { rawOriginalPlatform = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case rawReceiptType = "receiptType"
        case appAppleId, bundleId, applicationVersion, versionExternalIdentifier, receiptCreationDate
        case originalPurchaseDate, originalApplicationVersion, deviceVerification, deviceVerificationNonce
        case preorderDate, appTransactionId
        case rawOriginalPlatform = "originalPlatform"
        case storeType
    }
}

extension AppTransactionPayload: JWSVerifiable {
    public var verificationDate: Date? { receiptCreationDate }
    public var verificationBundleID: String? { bundleId }
    public var verificationEnvironment: String? { rawReceiptType }
    public static var verifiesBundleID: Bool { true }
}
