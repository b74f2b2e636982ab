public import Foundation

/// A refund of one item of an Advanced Commerce transaction (`refunds` of an `AdvancedCommerceTransactionItem`).
public struct AdvancedCommerceRefund: Codable, Hashable, Sendable {
    /// The amount refunded, in milliunits of the transaction's currency.
    public var refundAmount: Int64?
    /// When the App Store refunded the item.
    public var refundDate: Date?
    /// Why: `UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`, `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`,
    /// `MODIFY_ITEMS_REFUND` or `SIMULATE_REFUND_DECLINE`.
    public var refundReason: String?
    /// How much: `FULL`, `PRORATED` or `CUSTOM`.
    public var refundType: String?

    /// Creates a refund.
    public init(refundAmount: Int64? = nil, refundDate: Date? = nil, refundReason: String? = nil, refundType: String? = nil) {
        self.refundAmount = refundAmount
        self.refundDate = refundDate
        self.refundReason = refundReason
        self.refundType = refundType
    }

    /// The refund reasons Apple's Advanced Commerce API accepts.
    public static let reasons: Set<String> = [
        "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER", "MODIFY_ITEMS_REFUND",
        "SIMULATE_REFUND_DECLINE",
    ]
    /// The refund types Apple's Advanced Commerce API accepts.
    public static let types: Set<String> = ["FULL", "PRORATED", "CUSTOM"]
}
