public import Foundation

/// The decoded app receipt in a `verifyReceipt` response: its `receipt` object.
///
/// Identifiers and versions are strings, `adam_id`, `app_item_id`, `download_id` and
/// `version_external_identifier` are numbers, and each date is written three times (`receipt_creation_date`,
/// `…_ms`, `…_pst`), as Apple does.
public struct ReceiptInfo: Codable, Hashable, Sendable {
    /// `receipt_type`: `Production`, `ProductionSandbox`, `ProductionVPP`, `ProductionVPPSandbox` (or `Xcode`).
    public var receiptType: String
    /// `adam_id` and `app_item_id`: the app's Apple ID, 0 outside production.
    public var appItemID: Int64
    /// `bundle_id`.
    public var bundleID: String
    /// `application_version`: the app version the receipt was issued to (`CFBundleVersion`).
    public var applicationVersion: String
    /// `download_id`: 0 outside production.
    public var downloadID: Int64
    /// `version_external_identifier`: 0 outside production.
    public var versionExternalIdentifier: Int64
    /// `receipt_creation_date`.
    public var receiptCreationDate: Date?
    /// `request_date`: when `verifyReceipt` answered.
    public var requestDate: Date?
    /// `original_purchase_date`: when the customer first got the app.
    public var originalPurchaseDate: Date?
    /// `expiration_date`: when a volume-purchase receipt expires.
    public var expirationDate: Date?
    /// `original_application_version`: the app version the customer first got (`1.0` in the sandbox).
    public var originalApplicationVersion: String?
    /// `in_app`: the in-app purchases the receipt lists.
    public var inApp: [InAppPurchaseInfo]

    /// The JSON form of a decoded receipt, answered at `requestDate`.
    public init(_ receipt: AppReceipt, requestDate: Date?) {
        receiptType = receipt.receiptType
        appItemID = receipt.appItemID
        bundleID = receipt.bundleID
        applicationVersion = receipt.appVersion
        downloadID = 0
        versionExternalIdentifier = 0
        receiptCreationDate = receipt.creationDate
        self.requestDate = requestDate
        originalPurchaseDate = receipt.originalPurchaseDate
        expirationDate = receipt.expirationDate
        originalApplicationVersion = receipt.originalAppVersion
        inApp = receipt.inAppPurchases.map(InAppPurchaseInfo.init)
    }

    /// Decodes a `receipt` object; dates are read from their `_ms` twins.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyJSONKey.self)
        receiptType = try container.string("receipt_type") ?? ""
        appItemID = try container.decodeIfPresent(Int64.self, forKey: LegacyJSONKey("app_item_id")) ?? 0
        bundleID = try container.string("bundle_id") ?? ""
        applicationVersion = try container.string("application_version") ?? ""
        downloadID = try container.decodeIfPresent(Int64.self, forKey: LegacyJSONKey("download_id")) ?? 0
        versionExternalIdentifier = try container.decodeIfPresent(Int64.self, forKey: LegacyJSONKey("version_external_identifier")) ?? 0
        receiptCreationDate = try container.date("receipt_creation_date")
        requestDate = try container.date("request_date")
        originalPurchaseDate = try container.date("original_purchase_date")
        expirationDate = try container.date("expiration_date")
        originalApplicationVersion = try container.string("original_application_version")
        inApp = try container.decodeIfPresent([InAppPurchaseInfo].self, forKey: LegacyJSONKey("in_app")) ?? []
    }

    /// Encodes the object with Apple's keys, leaving out dates that are not set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyJSONKey.self)
        try container.encode(receiptType, "receipt_type")
        try container.encode(appItemID, forKey: LegacyJSONKey("adam_id"))
        try container.encode(appItemID, forKey: LegacyJSONKey("app_item_id"))
        try container.encode(bundleID, "bundle_id")
        try container.encode(applicationVersion, "application_version")
        try container.encode(downloadID, forKey: LegacyJSONKey("download_id"))
        try container.encode(versionExternalIdentifier, forKey: LegacyJSONKey("version_external_identifier"))
        try container.encodeDate(receiptCreationDate, "receipt_creation_date")
        try container.encodeDate(requestDate, "request_date")
        try container.encodeDate(originalPurchaseDate, "original_purchase_date")
        try container.encodeDate(expirationDate, "expiration_date")
        try container.encode(originalApplicationVersion, "original_application_version")
        try container.encode(inApp, forKey: LegacyJSONKey("in_app"))
    }
}
