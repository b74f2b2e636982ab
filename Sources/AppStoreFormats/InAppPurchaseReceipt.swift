public import Foundation

/// One in-app purchase of an app receipt (a type-17 attribute), with Apple's attribute numbers 1701–1721.
public struct InAppPurchaseReceipt: Hashable, Sendable {
    /// 1701: the number of items purchased.
    public var quantity: Int
    /// 1702: the product identifier.
    public var productID: String
    /// 1703: the transaction identifier (a decimal string).
    public var transactionID: String
    /// 1705: the original transaction identifier. Emit it even in tests: older parsers require it.
    public var originalTransactionID: String?
    /// 1704: the purchase date (the renewal date for renewals).
    public var purchaseDate: Date?
    /// 1706: the original purchase date.
    public var originalPurchaseDate: Date?
    /// 1707: the raw product type (0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable).
    public var rawProductType: Int?
    /// 1708: the subscription expiration date; subscriptions only.
    public var expiresDate: Date?
    /// 1711: the web order line item identifier (an INTEGER here, a string in JSON).
    public var webOrderLineItemID: Int64?
    /// 1712: the cancellation (refund) date. Written as an empty IA5String when nil, as Apple does.
    public var cancellationDate: Date?
    /// 1713: whether the purchase is in a free trial.
    public var isTrialPeriod: Bool
    /// 1719: whether the purchase is in an introductory-price period.
    public var isInIntroOfferPeriod: Bool
    /// 1721: the promotional offer identifier, when one applied.
    public var promotionalOfferID: String?
    /// Attributes with other type numbers, kept as they are.
    public var additionalAttributes: [ReceiptAttribute]

    /// Creates an in-app purchase entry.
    public init(
        quantity: Int = 1,
        productID: String,
        transactionID: String,
        originalTransactionID: String? = nil,
        purchaseDate: Date?,
        originalPurchaseDate: Date? = nil,
        productType: ProductType? = nil,
        expiresDate: Date? = nil,
        webOrderLineItemID: Int64? = nil,
        cancellationDate: Date? = nil,
        isTrialPeriod: Bool = false,
        isInIntroOfferPeriod: Bool = false,
        promotionalOfferID: String? = nil,
        additionalAttributes: [ReceiptAttribute] = []
    ) {
        self.quantity = quantity
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.rawProductType = productType?.receiptValue
        self.expiresDate = expiresDate
        self.webOrderLineItemID = webOrderLineItemID
        self.cancellationDate = cancellationDate
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.promotionalOfferID = promotionalOfferID
        self.additionalAttributes = additionalAttributes
    }

    /// 1707 as a ``ProductType``.
    public var productType: ProductType? {
        get { rawProductType.flatMap(ProductType.init(receiptValue:)) }
        set { rawProductType = newValue?.receiptValue }
    }

    /// The attributes this purchase encodes to, in type order.
    var attributes: [ReceiptAttribute] {
        var attributes: [ReceiptAttribute] = [
            .integer(1701, Int64(quantity)),
            .utf8String(1702, productID),
            .utf8String(1703, transactionID),
            .date(1704, purchaseDate),
        ]
        if let originalTransactionID { attributes.append(.utf8String(1705, originalTransactionID)) }
        if let originalPurchaseDate { attributes.append(.date(1706, originalPurchaseDate)) }
        if let rawProductType { attributes.append(.integer(1707, Int64(rawProductType))) }
        if let expiresDate { attributes.append(.date(1708, expiresDate)) }
        if let webOrderLineItemID { attributes.append(.integer(1711, webOrderLineItemID)) }
        attributes.append(.date(1712, cancellationDate))
        attributes.append(.integer(1713, isTrialPeriod ? 1 : 0))
        attributes.append(.integer(1719, isInIntroOfferPeriod ? 1 : 0))
        if let promotionalOfferID { attributes.append(.utf8String(1721, promotionalOfferID)) }
        return attributes + additionalAttributes
    }

    /// The DER `InAppReceipt` SET (sorted as DER requires).
    public var derEncoded: Data {
        ReceiptDER.attributeSet(attributes)
    }

    /// Decodes an `InAppReceipt` SET (DER or BER).
    public init(derEncoded data: Data) throws {
        self.init(productID: "", transactionID: "", purchaseDate: nil)
        for attribute in try ReceiptPayloadReader.attributes(in: data) {
            let value = ReceiptPayloadReader.Value(attribute.value)
            switch attribute.type {
            case 1701: quantity = Int(value.integer ?? 1)
            case 1702: productID = value.string ?? ""
            case 1703: transactionID = value.string ?? ""
            case 1704: purchaseDate = value.date
            case 1705: originalTransactionID = value.string
            case 1706: originalPurchaseDate = value.date
            case 1707: rawProductType = value.integer.map { Int($0) }
            case 1708: expiresDate = value.date
            case 1711: webOrderLineItemID = value.integer
            case 1712: cancellationDate = value.date
            case 1713: isTrialPeriod = (value.integer ?? 0) != 0
            case 1719: isInIntroOfferPeriod = (value.integer ?? 0) != 0
            case 1721: promotionalOfferID = value.string
            default: additionalAttributes.append(attribute)
            }
        }
    }
}
