/// The body of a `verifyReceipt` response.
///
/// Only ``status`` is always present. A valid receipt (status 0) also has ``environment`` and ``receipt``, and,
/// for an app with auto-renewable subscriptions, ``latestReceipt``, ``latestReceiptInfo`` and
/// ``pendingRenewalInfo``.
public struct VerifyReceiptResponse: Codable, Hashable, Sendable {
    /// `status`: 0 when the receipt is valid, otherwise why not.
    public var status: VerifyReceiptStatus
    /// `environment`: `Sandbox` or `Production`, the environment that answered.
    public var environment: String?
    /// `receipt`: the receipt that was sent, decoded.
    public var receipt: ReceiptInfo?
    /// `latest_receipt`: the account's current app receipt, base64-encoded.
    public var latestReceipt: String?
    /// `latest_receipt_info`: the account's in-app purchases in the app, newest first, finished consumables left out.
    public var latestReceiptInfo: [InAppPurchaseInfo]?
    /// `pending_renewal_info`: one entry per auto-renewable subscription.
    public var pendingRenewalInfo: [PendingRenewalInfo]?
    /// `is-retryable`: whether an internal error (status 21100–21199) may succeed when tried again.
    public var isRetryable: Bool?

    /// Creates a response.
    public init(
        status: VerifyReceiptStatus, environment: String? = nil, receipt: ReceiptInfo? = nil, latestReceipt: String? = nil,
        latestReceiptInfo: [InAppPurchaseInfo]? = nil, pendingRenewalInfo: [PendingRenewalInfo]? = nil, isRetryable: Bool? = nil
    ) {
        self.status = status
        self.environment = environment
        self.receipt = receipt
        self.latestReceipt = latestReceipt
        self.latestReceiptInfo = latestReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
        self.isRetryable = isRetryable
    }

    private enum CodingKeys: String, CodingKey {
        case status, environment, receipt
        case latestReceipt = "latest_receipt"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
        case isRetryable = "is-retryable"
    }
}
