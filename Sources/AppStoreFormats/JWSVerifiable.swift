public import Foundation

/// A payload ``JWSVerifier`` can check beyond its signature: the date to validate the chain at, and the bundle
/// ID and environment to compare with the verifier's expectations.
///
/// The four App Store payloads conform with Apple's rules (app-store-server-library `SignedDataVerifier`):
/// transactions and app transactions check the bundle ID, renewal info does not, notifications take both from
/// `data`, `summary`, `externalPurchaseToken` or `appData`.
public protocol JWSVerifiable: Decodable, Sendable {
    /// The time the chain must be valid at: `signedDate`, or `receiptCreationDate` for app transactions.
    var verificationDate: Date? { get }
    /// The bundle ID to compare with the verifier's, or nil when the payload type has none to check.
    var verificationBundleID: String? { get }
    /// The raw environment to compare with the verifier's.
    var verificationEnvironment: String? { get }
    /// Whether a verifier configured with a bundle ID checks this payload type's ``verificationBundleID``.
    static var verifiesBundleID: Bool { get }
}
