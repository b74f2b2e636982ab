import AppStoreEngine
import Foundation
import AppStoreFormats

/// A transaction as the `storekit` command prints it with `--json`: Apple's field names where Apple has one.
struct TransactionOutput: Encodable {
    var transactionId: String
    var originalTransactionId: String
    /// The order identifier the App Store Server API's order lookup takes.
    var orderId: String
    var productId: String
    var bundleId: String
    var type: String
    var account: String
    var quantity: Int
    var purchaseDate: String
    var originalPurchaseDate: String
    /// For an auto-renewable subscription: when the period this transaction paid for ends.
    var expiresDate: String?
    var storefront: String
    var storefrontId: String
    var currency: String
    var price: String
    var amountCharged: String
    var origin: String
    var state: String
    var revocationDate: String?
    var revocationReason: Int?
    /// For a period an offer priced: Apple's `offerType` (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    var offerType: Int?
    /// The promotional or win-back offer's identifier, or the offer code's reference name.
    var offerIdentifier: String?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT`.
    var offerDiscountType: String?
    /// The transaction as a JWS, when the command signs it.
    var signedTransaction: String?

    init(_ record: TransactionRecord) {
        transactionId = String(record.id)
        originalTransactionId = String(record.originalID)
        orderId = record.orderID
        productId = record.productID
        bundleId = record.bundleID
        type = record.productType.rawValue
        account = record.accountID
        quantity = record.quantity
        purchaseDate = record.purchaseDate.formatted(.iso8601)
        originalPurchaseDate = record.originalPurchaseDate.formatted(.iso8601)
        expiresDate = record.expiresDate?.formatted(.iso8601)
        storefront = record.storefront
        storefrontId = record.storefrontID
        currency = record.currency
        price = "\(record.unitPrice)"
        amountCharged = "\(record.amountCharged)"
        origin = record.origin.rawValue
        state = record.state.name
        revocationDate = record.revocationDate?.formatted(.iso8601)
        revocationReason = record.revocationReason.map { Int($0.rawValue) }
        offerType = record.offer.map { Int($0.type.rawValue) }
        offerIdentifier = record.offer?.identifier
        offerDiscountType = record.offer?.discountType.rawValue
    }

    /// One line for people: id, product, state, date, amount.
    var line: String {
        var text = "\(transactionId)  \(productId)  \(state)  \(purchaseDate)  \(amountCharged) \(currency)"
        if quantity > 1 { text += "  ×\(quantity)" }
        if originalTransactionId != transactionId { text += "  (\(origin) of \(originalTransactionId))" }
        if let offerDiscountType { text += "  offer \(offerIdentifier.map { "\($0) " } ?? "")\(offerDiscountType)" }
        if let revocationDate { text += "  refunded \(revocationDate)" }
        return text + "  [\(account)]"
    }
}

extension TransactionState {
    /// A short name for the state, as printed by the command.
    var name: String {
        switch self {
        case .purchased: "purchased"
        case .pendingApproval: "pending-approval"
        case .declined: "declined"
        case .interrupted: "interrupted"
        case .failed(let code): "failed(SKError \(code))"
        }
    }
}
