/// The body of a `verifyReceipt` request: `{"receipt-data": …, "password": …, "exclude-old-transactions": …}`.
public struct VerifyReceiptRequest: Codable, Hashable, Sendable {
    /// The app receipt, base64-encoded (`receipt-data`).
    public var receiptData: String?
    /// The app's shared secret (`password`), needed when the app has one.
    public var password: String?
    /// Whether `latest_receipt_info` keeps only the latest transaction of each auto-renewable subscription
    /// (`exclude-old-transactions`).
    public var excludeOldTransactions: Bool?

    /// Creates a request.
    public init(receiptData: String?, password: String? = nil, excludeOldTransactions: Bool? = nil) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
    }

    private enum CodingKeys: String, CodingKey {
        case receiptData = "receipt-data"
        case password
        case excludeOldTransactions = "exclude-old-transactions"
    }
}
