public import Foundation

/// One in-app purchase as `verifyReceipt` describes it: an element of `receipt.in_app` and of
/// `latest_receipt_info`.
///
/// Every scalar is a string on the wire, as Apple writes it (`"quantity": "1"`, `"is_trial_period": "false"`);
/// each date is written three times, as `purchase_date`, `purchase_date_ms` and `purchase_date_pst`.
public struct InAppPurchaseInfo: Codable, Hashable, Sendable {
    /// `quantity`: how many were bought.
    public var quantity: String
    /// `product_id`.
    public var productID: String
    /// `transaction_id`.
    public var transactionID: String
    /// `original_transaction_id`: the first purchase the transaction derives from.
    public var originalTransactionID: String?
    /// `purchase_date`: when the customer was charged (for a renewal, when the period began).
    public var purchaseDate: Date?
    /// `original_purchase_date`.
    public var originalPurchaseDate: Date?
    /// `expires_date`: when an auto-renewable subscription's period ends.
    public var expiresDate: Date?
    /// `web_order_line_item_id`: identifies one period of a subscription across devices.
    public var webOrderLineItemID: String?
    /// `is_trial_period`: `"true"` during a free trial, else `"false"`.
    public var isTrialPeriod: String?
    /// `is_in_intro_offer_period`: `"true"` during an introductory pay-as-you-go or pay-up-front period.
    public var isInIntroOfferPeriod: String?
    /// `in_app_ownership_type`: `PURCHASED` or `FAMILY_SHARED`.
    public var inAppOwnershipType: String?
    /// `cancellation_date`: when the App Store refunded the transaction.
    public var cancellationDate: Date?
    /// `cancellation_reason`: `"1"` when the customer reported an issue with the app, `"0"` for another reason.
    public var cancellationReason: String?
    /// `promotional_offer_id`: the promotional offer that priced the period.
    public var promotionalOfferID: String?
    /// `offer_code_ref_name`: the reference name of the offer code that priced the period.
    public var offerCodeRefName: String?
    /// `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String?
    /// `is_upgraded`: `"true"` when the customer upgraded to another subscription during the period.
    public var isUpgraded: String?
    /// `app_account_token`: the app's UUID for the customer, if the purchase carried one.
    public var appAccountToken: String?

    /// Creates an entry with the fields every purchase has; set the others as they apply.
    public init(quantity: String = "1", productID: String, transactionID: String, purchaseDate: Date?) {
        self.quantity = quantity
        self.productID = productID
        self.transactionID = transactionID
        self.purchaseDate = purchaseDate
    }

    /// The JSON form of an app receipt's in-app attribute: the fields the receipt itself carries.
    ///
    /// `in_app_ownership_type`, `subscription_group_identifier`, `offer_code_ref_name`, `cancellation_reason`,
    /// `is_upgraded` and `app_account_token` have no receipt attribute; whoever knows the transaction adds them.
    public init(_ purchase: InAppPurchaseReceipt) {
        self.init(quantity: String(purchase.quantity), productID: purchase.productID, transactionID: purchase.transactionID, purchaseDate: purchase.purchaseDate)
        originalTransactionID = purchase.originalTransactionID
        originalPurchaseDate = purchase.originalPurchaseDate
        expiresDate = purchase.expiresDate
        webOrderLineItemID = purchase.webOrderLineItemID.map { String($0) }
        cancellationDate = purchase.cancellationDate
        isTrialPeriod = purchase.isTrialPeriod ? "true" : "false"
        if purchase.productType == .autoRenewable || purchase.expiresDate != nil {
            isInIntroOfferPeriod = purchase.isInIntroOfferPeriod ? "true" : "false"
        }
        promotionalOfferID = purchase.promotionalOfferID
    }

    /// Decodes an entry; dates are read from their `_ms` twins.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: LegacyJSONKey.self)
        self.init(
            quantity: try container.string("quantity") ?? "1", productID: try container.string("product_id") ?? "",
            transactionID: try container.string("transaction_id") ?? "", purchaseDate: try container.date("purchase_date")
        )
        originalTransactionID = try container.string("original_transaction_id")
        originalPurchaseDate = try container.date("original_purchase_date")
        expiresDate = try container.date("expires_date")
        webOrderLineItemID = try container.string("web_order_line_item_id")
        isTrialPeriod = try container.string("is_trial_period")
        isInIntroOfferPeriod = try container.string("is_in_intro_offer_period")
        inAppOwnershipType = try container.string("in_app_ownership_type")
        cancellationDate = try container.date("cancellation_date")
        cancellationReason = try container.string("cancellation_reason")
        promotionalOfferID = try container.string("promotional_offer_id")
        offerCodeRefName = try container.string("offer_code_ref_name")
        subscriptionGroupIdentifier = try container.string("subscription_group_identifier")
        isUpgraded = try container.string("is_upgraded")
        appAccountToken = try container.string("app_account_token")
    }

    /// Encodes the entry with Apple's keys, leaving out fields that are not set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: LegacyJSONKey.self)
        try container.encode(quantity, "quantity")
        try container.encode(productID, "product_id")
        try container.encode(transactionID, "transaction_id")
        try container.encode(originalTransactionID, "original_transaction_id")
        try container.encodeDate(purchaseDate, "purchase_date")
        try container.encodeDate(originalPurchaseDate, "original_purchase_date")
        try container.encodeDate(expiresDate, "expires_date")
        try container.encode(webOrderLineItemID, "web_order_line_item_id")
        try container.encode(isTrialPeriod, "is_trial_period")
        try container.encode(isInIntroOfferPeriod, "is_in_intro_offer_period")
        try container.encode(inAppOwnershipType, "in_app_ownership_type")
        try container.encodeDate(cancellationDate, "cancellation_date")
        try container.encode(cancellationReason, "cancellation_reason")
        try container.encode(promotionalOfferID, "promotional_offer_id")
        try container.encode(offerCodeRefName, "offer_code_ref_name")
        try container.encode(subscriptionGroupIdentifier, "subscription_group_identifier")
        try container.encode(isUpgraded, "is_upgraded")
        try container.encode(appAccountToken, "app_account_token")
    }
}
