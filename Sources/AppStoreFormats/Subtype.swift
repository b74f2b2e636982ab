/// The subtype of an App Store Server Notification V2 (`subtype`).
///
/// Payloads store the raw value next to this enum (`raw…`), so values Apple adds later survive decoding.
public enum Subtype: String, Codable, Hashable, Sendable, CaseIterable {
    /// `INITIAL_BUY`.
    case initialBuy = "INITIAL_BUY"
    /// `RESUBSCRIBE`.
    case resubscribe = "RESUBSCRIBE"
    /// `DOWNGRADE`.
    case downgrade = "DOWNGRADE"
    /// `UPGRADE`.
    case upgrade = "UPGRADE"
    /// `AUTO_RENEW_ENABLED`.
    case autoRenewEnabled = "AUTO_RENEW_ENABLED"
    /// `AUTO_RENEW_DISABLED`.
    case autoRenewDisabled = "AUTO_RENEW_DISABLED"
    /// `VOLUNTARY`.
    case voluntary = "VOLUNTARY"
    /// `BILLING_RETRY`.
    case billingRetry = "BILLING_RETRY"
    /// `PRICE_INCREASE`.
    case priceIncrease = "PRICE_INCREASE"
    /// `GRACE_PERIOD`.
    case gracePeriod = "GRACE_PERIOD"
    /// `PENDING`.
    case pending = "PENDING"
    /// `ACCEPTED`.
    case accepted = "ACCEPTED"
    /// `BILLING_RECOVERY`.
    case billingRecovery = "BILLING_RECOVERY"
    /// `PRODUCT_NOT_FOR_SALE`.
    case productNotForSale = "PRODUCT_NOT_FOR_SALE"
    /// `SUMMARY`.
    case summary = "SUMMARY"
    /// `FAILURE`.
    case failure = "FAILURE"
    /// `UNREPORTED`.
    case unreported = "UNREPORTED"
    /// `ACTIVE_TOKEN_REMINDER`: a custom link external purchase token is still active (monthly).
    case activeTokenReminder = "ACTIVE_TOKEN_REMINDER"
    /// `CREATED`: Apple created a custom link external purchase token.
    case created = "CREATED"
}
