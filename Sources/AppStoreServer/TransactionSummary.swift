public import AppStoreEngine
import AppStoreFormats
import Foundation
import JSONCoding

/// A transaction as `storekit --json` and the control API show it: Apple's field names where Apple has one, dates in
/// ISO 8601, amounts as exact decimal strings, and its JWS when one was signed.
public struct TransactionSummary: Codable, Sendable, Hashable {
    /// The transaction's identifier.
    public var transactionId: String
    /// The original transaction's identifier.
    public var originalTransactionId: String
    /// The order identifier the App Store Server API's order lookup takes.
    public var orderId: String
    /// The product bought.
    public var productId: String
    /// The app.
    public var bundleId: String
    /// Apple's product type name, e.g. `Auto-Renewable Subscription`.
    public var type: String
    /// The buying account.
    public var account: String
    /// How many were bought.
    public var quantity: Int
    /// When the transaction happened, on the store's clock.
    public var purchaseDate: String
    /// When the original purchase happened.
    public var originalPurchaseDate: String
    /// For an auto-renewable subscription: when the period this transaction paid for ends.
    public var expiresDate: String?
    /// The storefront (ISO 3166-1 alpha-3).
    public var storefront: String
    /// Apple's numeric storefront identifier.
    public var storefrontId: String
    /// The ISO 4217 currency.
    public var currency: String
    /// The price of one unit.
    public var price: String
    /// What the customer paid in all.
    public var amountCharged: String
    /// How the transaction came about: `purchase`, `repurchase`, `restore`, `familyShare` or `renewal`.
    public var origin: String
    /// `purchased`, `pending-approval`, `declined`, `interrupted` or `failed(SKError N)`.
    public var state: String
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: String?
    /// Apple's `revocationReason`.
    public var revocationReason: Int?
    /// Apple's `revocationType`, when the store recorded one: `REFUND_FULL` or `REFUND_PRORATED` for a decided refund
    /// request, `FAMILY_REVOKE`; a refund without one signs as `REFUND_FULL`.
    public var revocationType: String?
    /// For a prorated refund: Apple's `revocationPercentage`, in milli-percent (50000 is 50%).
    public var revocationPercentage: Int?
    /// The customer's latest refund request, when the store kept one (refund requests that await a decision).
    public var refundRequest: RefundRequestSummary?
    /// For a period an offer priced: Apple's `offerType` (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int?
    /// The promotional or win-back offer's identifier, or the offer code's reference name.
    public var offerIdentifier: String?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO` or `PAY_UP_FRONT`.
    public var offerDiscountType: String?
    /// The transaction as a JWS, when it was signed.
    public var signedTransaction: String?

    /// Describes a transaction with its JWS, signed by `engine` when the transaction completed (a pending or failed
    /// one has none): what a purchase answers.
    public static func signed(_ record: TransactionRecord, by engine: StoreEngine) async throws(StoreError) -> TransactionSummary {
        TransactionSummary(record, signedTransaction: record.state.isCompleted ? try engine.signedTransaction(record) : nil)
    }

    /// Dates as ISO 8601 in UTC; made once, as `.formatted(.iso8601)` makes a new style each call.
    private static let dateFormat = Date.ISO8601FormatStyle()

    /// Describes a transaction, with its JWS when given.
    public init(_ record: TransactionRecord, signedTransaction: String? = nil) {
        transactionId = String(record.id)
        originalTransactionId = String(record.originalID)
        orderId = record.orderID
        productId = record.productID
        bundleId = record.bundleID
        type = record.productType.rawValue
        account = record.accountID
        quantity = record.quantity
        purchaseDate = Self.dateFormat.format(record.purchaseDate)
        originalPurchaseDate = Self.dateFormat.format(record.originalPurchaseDate)
        expiresDate = record.expiresDate.map(Self.dateFormat.format)
        storefront = record.storefront
        storefrontId = record.storefrontID
        currency = record.currency
        price = record.unitPrice.plainText
        amountCharged = record.amountCharged.plainText
        origin = record.origin.rawValue
        state = switch record.state {
        case .purchased: "purchased"
        case .pendingApproval: "pending-approval"
        case .declined: "declined"
        case .interrupted: "interrupted"
        case .failed(let code): "failed(SKError \(code))"
        }
        revocationDate = record.revocationDate.map(Self.dateFormat.format)
        revocationReason = record.revocationReason.map { Int($0.rawValue) }
        revocationType = record.revocationType?.rawValue
        revocationPercentage = record.revocationPercentage
        refundRequest = record.refundRequest.map(RefundRequestSummary.init)
        offerType = record.offer.map { Int($0.type.rawValue) }
        offerIdentifier = record.offer?.identifier
        offerDiscountType = record.offer?.discountType.rawValue
        self.signedTransaction = signedTransaction
    }
}

extension TransactionSummary {
    /// The control API's JSON of the summary: what `JSONEncoder` with sorted keys gives, written field by field.
    ///
    /// Every purchase over the control API answers with one, and through `JSONEncoder` its encoding cost more than
    /// the purchase's storage writes; `TransactionSummaryJSONTests` holds the two to the same bytes.
    func controlJSON() -> Data {
        if refundRequest != nil {
            // A nested object the field writer does not write; few transactions carry one.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (try? encoder.encode(self)) ?? Data("{}".utf8)
        }
        var object = AppStoreJSONObject()
        // In the order of the keys' names, as `JSONEncoder.OutputFormatting.sortedKeys` has them.
        object.write(CodingKeys.account, account)
        object.write(CodingKeys.amountCharged, amountCharged)
        object.write(CodingKeys.bundleId, bundleId)
        object.write(CodingKeys.currency, currency)
        object.write(CodingKeys.expiresDate, expiresDate)
        object.write(CodingKeys.offerDiscountType, offerDiscountType)
        object.write(CodingKeys.offerIdentifier, offerIdentifier)
        object.write(CodingKeys.offerType, offerType)
        object.write(CodingKeys.orderId, orderId)
        object.write(CodingKeys.origin, origin)
        object.write(CodingKeys.originalPurchaseDate, originalPurchaseDate)
        object.write(CodingKeys.originalTransactionId, originalTransactionId)
        object.write(CodingKeys.price, price)
        object.write(CodingKeys.productId, productId)
        object.write(CodingKeys.purchaseDate, purchaseDate)
        object.write(CodingKeys.quantity, quantity)
        object.write(CodingKeys.revocationDate, revocationDate)
        object.write(CodingKeys.revocationPercentage, revocationPercentage)
        object.write(CodingKeys.revocationReason, revocationReason)
        object.write(CodingKeys.revocationType, revocationType)
        object.write(CodingKeys.signedTransaction, signedTransaction)
        object.write(CodingKeys.state, state)
        object.write(CodingKeys.storefront, storefront)
        object.write(CodingKeys.storefrontId, storefrontId)
        object.write(CodingKeys.transactionId, transactionId)
        object.write(CodingKeys.type, type)
        return object.finish()
    }
}

/// A customer's refund request as `storekit --json` and the control API show it (``TransactionSummary/refundRequest``).
public struct RefundRequestSummary: Codable, Sendable, Hashable {
    /// `pending`, `refunded`, `declined` or `reversed`.
    public var status: String
    /// When the customer asked, on the store's clock (ISO 8601).
    public var requestDate: String
    /// Apple's `consumptionRequestReason` the store sent with `CONSUMPTION_REQUEST`.
    public var consumptionRequestReason: String
    /// When the App Store decided or reversed it (ISO 8601).
    public var decisionDate: String?
    /// The consumption information the app's server sent, oldest first.
    public var consumption: [ConsumptionSummary]

    /// One Send Consumption Information request the app's server made.
    public struct ConsumptionSummary: Codable, Sendable, Hashable {
        /// When the store received it (ISO 8601).
        public var date: String
        /// The App Store Server API version of the endpoint: 1 or 2.
        public var version: Int
        /// The request body's fields, as JSON with sorted keys.
        public var fields: String
    }

    /// Describes a stored refund request.
    public init(_ request: RefundRequestRecord) {
        let format = Date.ISO8601FormatStyle()
        status = request.status.rawValue
        requestDate = format.format(request.requestDate)
        consumptionRequestReason = request.reason.rawValue
        decisionDate = request.decisionDate.map(format.format)
        consumption = request.consumption.map { ConsumptionSummary(date: format.format($0.date), version: $0.version, fields: $0.fields) }
    }
}
