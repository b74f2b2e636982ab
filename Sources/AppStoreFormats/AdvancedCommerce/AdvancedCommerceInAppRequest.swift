/// An Advanced Commerce request an app passes to a purchase (`AdvancedCommerceProduct.purchase(compactJWS:)`),
/// decoded from the `request` claim of the developer's signed JWS: Apple's `OneTimeChargeCreateRequest`
/// (`CREATE_ONE_TIME_CHARGE`), `SubscriptionCreateRequest` (`CREATE_SUBSCRIPTION`) or
/// `SubscriptionReactivateInAppRequest` (`REACTIVATE_SUBSCRIPTION`).
public struct AdvancedCommerceInAppRequest: Codable, Hashable, Sendable {
    /// Which request this is: ``createOneTimeCharge``, ``createSubscription`` or ``reactivateSubscription``.
    public var operation: String?
    /// The request format's version, `"1"`.
    public var version: String?
    /// The request's metadata.
    public var requestInfo: AdvancedCommerceRequestInfo?
    /// The ISO 4217 currency of the prices.
    public var currency: String?
    /// The developer's tax code.
    public var taxCode: String?
    /// The storefront (ISO 3166-1 alpha-3) the request is priced for, if given.
    public var storefront: String?
    /// A one-time charge's item.
    public var item: AdvancedCommerceRequestItem?
    /// A new subscription's items; for a reactivation, the SKUs of the items that renew again (all, when absent).
    public var items: [AdvancedCommerceRequestItem]?
    /// A subscription's display name and description.
    public var descriptors: AdvancedCommerceDescriptors?
    /// A subscription's billing period, an ISO 8601 duration.
    public var period: String?
    /// A subscription's previous transaction, when it replaces an earlier one.
    public var previousTransactionId: String?
    /// A reactivation's subscription: any of its transactions' identifiers.
    public var transactionId: String?

    /// Creates a request.
    public init(operation: String? = nil, version: String? = "1", requestInfo: AdvancedCommerceRequestInfo? = nil, currency: String? = nil, taxCode: String? = nil) {
        self.operation = operation
        self.version = version
        self.requestInfo = requestInfo
        self.currency = currency
        self.taxCode = taxCode
    }

    /// `operation` of a one-time charge.
    public static let createOneTimeCharge = "CREATE_ONE_TIME_CHARGE"
    /// `operation` of a new subscription.
    public static let createSubscription = "CREATE_SUBSCRIPTION"
    /// `operation` of turning a subscription's automatic renewal back on.
    public static let reactivateSubscription = "REACTIVATE_SUBSCRIPTION"

    /// The items the request buys: a one-time charge's item, or a subscription's items.
    public var purchasedItems: [AdvancedCommerceRequestItem] {
        operation == Self.createOneTimeCharge ? item.map { [$0] } ?? [] : items ?? []
    }

    /// What the request charges: the sum of its items' prices (an item's offer price when it has an offer), in
    /// milliunits of ``currency``.
    public var totalPrice: Int64 {
        purchasedItems.reduce(0) { $0 + ($1.offer?.price ?? $1.price ?? 0) }
    }

    /// Checks the request as the App Store does before it sells anything, in the order Apple's errors name the
    /// fields; `nil` when it is complete and valid.
    public func validationError() -> AdvancedCommerceAPIError? {
        guard let operation else { return .invalidOperation }
        guard [Self.createOneTimeCharge, Self.createSubscription, Self.reactivateSubscription].contains(operation) else { return .invalidOperation }
        guard let version else { return .nullVersion }
        guard version == "1" else { return .unexpectedVersion }
        if let error = AdvancedCommerceAPIError.check(requestInfo) { return error }
        if operation == Self.reactivateSubscription { return reactivationError() }
        guard let currency else { return .nullCurrency }
        guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return .invalidCurrency }
        guard let taxCode else { return .nullTaxCode }
        guard !taxCode.isEmpty else { return .invalidTaxProductCode }
        if let storefront, storefront.count != 3 { return .invalidStorefront }
        if operation == Self.createOneTimeCharge {
            guard let item else { return .nullItem }
            return AdvancedCommerceAPIError.check(item, allowsOffer: false)
        }
        guard let descriptors else { return .nullDescriptors }
        if let error = AdvancedCommerceAPIError.check(descriptors) { return error }
        guard let period else { return .nullPeriod }
        guard AdvancedCommerceTransactionInfo.periods.contains(period) else { return .invalidRenewalPeriod }
        guard let items else { return .nullItems }
        guard !items.isEmpty else { return .atLeastOneItem }
        var skus = Set<String>()
        for item in items {
            if let error = AdvancedCommerceAPIError.check(item, allowsOffer: true) { return error }
            guard skus.insert(item.sku ?? "").inserted else { return .multipleOperationsOnSingleSKU }
        }
        return nil
    }

    /// Checks a reactivation past its version and request info: a numeric `transactionId`, a storefront code, and
    /// items that name each SKU once.
    private func reactivationError() -> AdvancedCommerceAPIError? {
        guard let transactionId, !transactionId.isEmpty, transactionId.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return .invalidTransactionId }
        if let storefront, storefront.count != 3 { return .invalidStorefront }
        guard let items else { return nil }
        guard !items.isEmpty else { return .atLeastOneItem }
        var skus = Set<String>()
        for item in items {
            if let error = AdvancedCommerceAPIError.check(sku: item.sku) { return error }
            guard skus.insert(item.sku ?? "").inserted else { return .multipleOperationsOnSingleSKU }
        }
        return nil
    }
}
