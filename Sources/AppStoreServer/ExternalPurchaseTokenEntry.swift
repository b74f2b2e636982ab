public import AppStoreEngine
import AppStoreFormats
import Foundation

/// An external purchase token as the control API answers it (`POST /control/external-purchase-tokens`) and
/// `storekit external-purchase token --json` prints it: Apple's token fields, the status of its latest accepted report,
/// and the value the app receives.
public struct ExternalPurchaseTokenEntry: Codable, Sendable, Hashable {
    /// The token's identifier (`SANDBOX_…` outside Production): what a report names.
    public var externalPurchaseId: String
    /// The app.
    public var bundleId: String
    /// The app's Apple ID.
    public var appAppleId: Int64
    /// `ACQUISITION` or `SERVICES` for a custom link token.
    public var tokenType: String?
    /// When the token was created, UNIX milliseconds on the store's clock.
    public var tokenCreationDate: Int64
    /// When a custom link token expires, UNIX milliseconds.
    public var tokenExpirationDate: Int64?
    /// The status of the latest report the store accepted for the token.
    public var reportStatus: String?
    /// The token as the app receives it: its JSON, Base64URL-encoded.
    public var value: String

    /// Describes a stored token.
    public init(_ record: ExternalPurchaseTokenRecord) throws {
        externalPurchaseId = record.id
        bundleId = record.bundleID
        appAppleId = record.appAppleID
        tokenType = record.tokenType?.rawValue
        tokenCreationDate = Int64((record.creationDate.timeIntervalSince1970 * 1000).rounded())
        tokenExpirationDate = record.expirationDate.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
        reportStatus = record.reportStatus
        value = try record.token.encodedValue()
    }
}
