/// An Advanced Commerce request an app passes to a purchase (`AdvancedCommerceProduct.purchase(compactJWS:)`),
/// decoded from the `request` claim of the developer's signed JWS: Apple's `OneTimeChargeCreateRequest`
/// (`CREATE_ONE_TIME_CHARGE`), `SubscriptionCreateRequest` (`CREATE_SUBSCRIPTION`) or
/// `SubscriptionModifyInAppRequest` (`MODIFY_SUBSCRIPTION`) or `SubscriptionReactivateInAppRequest`
/// (`REACTIVATE_SUBSCRIPTION`).
public struct AdvancedCommerceInAppRequest: Codable, Hashable, Sendable {
    /// Which request this is: ``createOneTimeCharge``, ``createSubscription``, ``modifySubscription`` or
    /// ``reactivateSubscription``.
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
    /// A new subscription's display name and description, or a modification's new ones with when they apply.
    public var descriptors: AdvancedCommerceDescriptors?
    /// A subscription's billing period, an ISO 8601 duration.
    public var period: String?
    /// A subscription's previous transaction, when it replaces an earlier one.
    public var previousTransactionId: String?
    /// A modification's or reactivation's subscription: any of its transactions' identifiers.
    public var transactionId: String?
    /// Whether a modification keeps the subscription's billing dates (the customer pays prorated prices now) or starts
    /// a new billing period now.
    public var retainBillingCycle: Bool?
    /// The items a modification adds, from now.
    public var addItems: [AdvancedCommerceRequestItem]?
    /// The items a modification changes (each names its `currentSKU`), now or from the next renewal.
    public var changeItems: [AdvancedCommerceRequestItem]?
    /// The items (by SKU) a modification removes from the next renewal.
    public var removeItems: [AdvancedCommerceRequestItem]?
    /// A modification's new billing period.
    public var periodChange: PeriodChange?

    /// A modification's new billing period (`SubscriptionModifyPeriodChange`).
    public struct PeriodChange: Codable, Hashable, Sendable {
        /// The new period, an ISO 8601 duration Apple allows (`P1W`, `P1M`, …).
        public var period: String?
        /// `IMMEDIATELY` (a new billing period starts now) or `NEXT_BILL_CYCLE`.
        public var effective: String?

        /// Creates a period change.
        public init(period: String? = nil, effective: String? = nil) {
            self.period = period
            self.effective = effective
        }
    }

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
    /// `operation` of changing a subscription's items, descriptors or period.
    public static let modifySubscription = "MODIFY_SUBSCRIPTION"
    /// `effective` of a change that applies now.
    public static let immediately = "IMMEDIATELY"
    /// `effective` of a change that applies from the next renewal.
    public static let nextBillCycle = "NEXT_BILL_CYCLE"
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
        guard [Self.createOneTimeCharge, Self.createSubscription, Self.modifySubscription, Self.reactivateSubscription].contains(operation) else {
            return .invalidOperation
        }
        guard let version else { return .nullVersion }
        guard version == "1" else { return .unexpectedVersion }
        if let error = AdvancedCommerceAPIError.check(requestInfo) { return error }
        if operation == Self.reactivateSubscription { return reactivationError() }
        if operation == Self.modifySubscription { return modificationError() }
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

    /// Checks a modification past its version and request info: a numeric `transactionId`, `retainBillingCycle`, a
    /// currency when it prices anything, complete items (a changed one with its `currentSKU`, `reason` and
    /// `effective`), each SKU in one operation only, and `effective` on descriptors and a period change.
    private func modificationError() -> AdvancedCommerceAPIError? {
        guard let transactionId, !transactionId.isEmpty, transactionId.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return .invalidTransactionId }
        guard retainBillingCycle != nil else { return .malformedPayload }
        if let storefront, storefront.count != 3 { return .invalidStorefront }
        let priced = (addItems ?? []) + (changeItems ?? [])
        if !priced.isEmpty {
            guard let currency else { return .nullCurrency }
            guard currency.count == 3, currency.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return .invalidCurrency }
        }
        if let taxCode, taxCode.isEmpty { return .invalidTaxProductCode }
        let effectives = [Self.immediately, Self.nextBillCycle]
        var skus = Set<String>()
        for item in priced {
            if let error = AdvancedCommerceAPIError.check(item, allowsOffer: true) { return error }
            if let prorated = item.proratedPrice, prorated < 0 { return .negativePrice }
            guard skus.insert(item.sku ?? "").inserted else { return .multipleOperationsOnSingleSKU }
        }
        for item in changeItems ?? [] {
            guard let current = item.currentSKU, !current.isEmpty else { return .nullCurrentSKU }
            guard let reason = item.reason else { return .nullReason }
            guard ["UPGRADE", "DOWNGRADE", "APPLY_OFFER"].contains(reason) else { return .malformedPayload }
            guard let effective = item.effective else { return .nullEffective }
            guard effectives.contains(effective) else { return .malformedPayload }
            if current != item.sku { guard skus.insert(current).inserted else { return .multipleOperationsOnSingleSKU } }
        }
        for item in removeItems ?? [] {
            if let error = AdvancedCommerceAPIError.check(sku: item.sku) { return error }
            guard skus.insert(item.sku ?? "").inserted else { return .multipleOperationsOnSingleSKU }
        }
        if let descriptors {
            guard let effective = descriptors.effective else { return .nullEffective }
            guard effectives.contains(effective) else { return .malformedPayload }
            if let description = descriptors.description, description.count > 45 { return .descriptionLengthExceeded }
            if let displayName = descriptors.displayName, displayName.count > 30 { return .displayNameLengthExceeded }
        }
        if let periodChange {
            guard let period = periodChange.period else { return .nullPeriod }
            guard AdvancedCommerceTransactionInfo.periods.contains(period) else { return .invalidRenewalPeriod }
            guard let effective = periodChange.effective else { return .nullEffective }
            guard effectives.contains(effective) else { return .malformedPayload }
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
