/// The type of an App Store Server Notification V2 (`notificationType`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum NotificationTypeV2: String, Codable, Hashable, Sendable, CaseIterable {
    /// `SUBSCRIBED`.
    case subscribed = "SUBSCRIBED"
    /// `DID_CHANGE_RENEWAL_PREF`.
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    /// `DID_CHANGE_RENEWAL_STATUS`.
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    /// `OFFER_REDEEMED`.
    case offerRedeemed = "OFFER_REDEEMED"
    /// `DID_RENEW`.
    case didRenew = "DID_RENEW"
    /// `EXPIRED`.
    case expired = "EXPIRED"
    /// `DID_FAIL_TO_RENEW`.
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    /// `GRACE_PERIOD_EXPIRED`.
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    /// `PRICE_INCREASE`.
    case priceIncrease = "PRICE_INCREASE"
    /// `REFUND`.
    case refund = "REFUND"
    /// `REFUND_DECLINED`.
    case refundDeclined = "REFUND_DECLINED"
    /// `CONSUMPTION_REQUEST`.
    case consumptionRequest = "CONSUMPTION_REQUEST"
    /// `RENEWAL_EXTENDED`.
    case renewalExtended = "RENEWAL_EXTENDED"
    /// `REVOKE`.
    case revoke = "REVOKE"
    /// `TEST`.
    case test = "TEST"
    /// `RENEWAL_EXTENSION`.
    case renewalExtension = "RENEWAL_EXTENSION"
    /// `REFUND_REVERSED`.
    case refundReversed = "REFUND_REVERSED"
    /// `EXTERNAL_PURCHASE_TOKEN`.
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    /// `ONE_TIME_CHARGE`.
    case oneTimeCharge = "ONE_TIME_CHARGE"
    /// `RESCIND_CONSENT`.
    case rescindConsent = "RESCIND_CONSENT"
    /// `METADATA_UPDATE`.
    case metadataUpdate = "METADATA_UPDATE"
    /// `MIGRATION`.
    case migration = "MIGRATION"
    /// `PRICE_CHANGE`.
    case priceChange = "PRICE_CHANGE"
}
