public import Foundation

/// An App Store Server Notification V2 (`signedPayload`), with Apple's field names.
///
/// Exactly one of ``data``, ``summary``, ``externalPurchaseToken`` and ``appData`` is set. Verifiers take the
/// bundle ID and environment from whichever is present.
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    /// The raw `notificationType` value; see ``notificationType``.
    public var rawNotificationType: String?
    /// The raw `subtype` value; see ``subtype``.
    public var rawSubtype: String?
    /// The notification's unique identifier (a lowercase UUID string).
    public var notificationUUID: String?
    /// The app and transaction the notification is about.
    public var data: NotificationData?
    /// The outcome of a mass renewal-date extension.
    public var summary: NotificationSummary?
    /// An External Purchase token report.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// App-level data (`RESCIND_CONSENT`).
    public var appData: AppData?
    /// The notification format version, `"2.0"`.
    public var version: String?
    /// When the App Store signed this notification. Verifiers check the certificate chain at this date.
    public var signedDate: Date?

    /// Creates a notification of the given type; set ``data`` (or another body) before signing.
    public init(notificationType: NotificationTypeV2, subtype: Subtype? = nil, notificationUUID: UUID) {
        self.rawNotificationType = notificationType.rawValue
        self.rawSubtype = subtype?.rawValue
        self.notificationUUID = notificationUUID.uuidString.lowercased()
        self.version = "2.0"
    }

    /// The notification type (`notificationType`).
    public var notificationType: NotificationTypeV2? {
        get { rawNotificationType.flatMap(NotificationTypeV2.init(rawValue:)) }
        set { rawNotificationType = newValue?.rawValue }
    }

    /// The notification subtype (`subtype`).
    public var subtype: Subtype? {
        get { rawSubtype.flatMap(Subtype.init(rawValue:)) }
        set { rawSubtype = newValue?.rawValue }
    }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notificationType"
        case rawSubtype = "subtype"
        case notificationUUID, data, summary, externalPurchaseToken, appData, version, signedDate
    }
}

extension ResponseBodyV2DecodedPayload: JWSVerifiable {
    public var verificationDate: Date? { signedDate }

    public var verificationBundleID: String? {
        data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId ?? appData?.bundleId
    }

    public var verificationEnvironment: String? {
        if let data { return data.rawEnvironment }
        if let summary { return summary.rawEnvironment }
        if let externalPurchaseToken {
            let isSandbox = externalPurchaseToken.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return isSandbox ? AppStoreEnvironment.sandbox.rawValue : AppStoreEnvironment.production.rawValue
        }
        return appData?.rawEnvironment
    }

    public static var verifiesBundleID: Bool { true }
}
