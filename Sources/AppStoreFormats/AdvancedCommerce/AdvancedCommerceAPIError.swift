import Foundation

/// An Advanced Commerce API error, as Apple answers it: an HTTP status and `{"errorCode", "errorMessage"}`, with
/// Apple's numeric code. The server endpoints answer with it; a purchase whose in-app request fails a check is
/// refused with its code and message.
///
/// Compare with the static members; equality is on ``errorCode``.
public struct AdvancedCommerceAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status Apple answers with (400, 403, 404, 500).
    public let status: Int
    /// Apple's numeric error code, e.g. 4000173 for a malformed payload.
    public let errorCode: Int
    /// Apple's message for the code.
    public let errorMessage: String

    init(_ status: Int, _ errorCode: Int, _ errorMessage: String) {
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// The code and message.
    public var description: String { "\(errorCode) \(errorMessage)" }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.errorCode == rhs.errorCode }
    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(errorCode) }

    /// 4000006: the path's transaction identifier is not a number.
    public static let invalidTransactionId = Self(400, 4_000_006, "The transactionId is invalid.")
    /// 4000028: the storefront is not an App Store storefront.
    public static let invalidStorefront = Self(400, 4_000_028, "The storefront value is invalid.")
    /// 4000033: `appAccountToken` is neither a UUID nor empty.
    public static let invalidAppAccountToken = Self(400, 4_000_033, "The appAccountToken field must contain a valid UUID or an empty string.")
    /// 4000053: the currency is not an ISO 4217 code.
    public static let invalidCurrency = Self(400, 4_000_053, "The currency value is invalid.")
    /// 4000079: `requestInfo` is missing.
    public static let nullRequestInfo = Self(400, 4_000_079, "The required field, requestInfo, is missing.")
    /// 4000080: `requestReferenceId` is missing.
    public static let nullRequestReferenceID = Self(400, 4_000_080, "The required field, requestReferenceId, is missing.")
    /// 4000081: `requestReferenceId` is not a UUID.
    public static let invalidRequestReferenceID = Self(400, 4_000_081, "The requestReferenceId value is invalid.")
    /// 4000083: `version` is missing.
    public static let nullVersion = Self(400, 4_000_083, "The required field, version, is missing.")
    /// 4000084: `version` is not `1`.
    public static let unexpectedVersion = Self(400, 4_000_084, "The value of version is invalid.")
    /// 4000086: a price is negative.
    public static let negativePrice = Self(400, 4_000_086, "The price field must contain a positive number.")
    /// 4000087: a SKU is longer than 128 characters.
    public static let skuLengthExceeded = Self(400, 4_000_087, "Exceeds the maximum length of the SKU field.")
    /// 4000088: a description is longer than 45 characters.
    public static let descriptionLengthExceeded = Self(400, 4_000_088, "Exceeds the maximum length of the description field.")
    /// 4000089: a display name is longer than 30 characters.
    public static let displayNameLengthExceeded = Self(400, 4_000_089, "Exceeds the maximum length of the displayName field.")
    /// 4000092: an offer has no period.
    public static let nullOfferPeriod = Self(400, 4_000_092, "The required field, offer period, is missing.")
    /// 4000093: an offer has no period count.
    public static let nullPeriodCount = Self(400, 4_000_093, "The required field, periodCount, is missing.")
    /// 4000095: an offer has no reason.
    public static let nullReason = Self(400, 4_000_095, "The required field, reason, is missing.")
    /// 4000097: the `requestReferenceId` was used by an earlier request.
    public static let repeatedRequestReferenceId = Self(400, 4_000_097, "The requestReferenceId was repeated.")
    /// 4000098: `currency` is missing.
    public static let nullCurrency = Self(400, 4_000_098, "The required field, currency, is missing.")
    /// 4000099: `taxCode` is missing.
    public static let nullTaxCode = Self(400, 4_000_099, "The required field, taxCode, is missing.")
    /// 4000101: `items` is missing.
    public static let nullItems = Self(400, 4_000_101, "The required field, items, is missing.")
    /// 4000102: `item` is missing.
    public static let nullItem = Self(400, 4_000_102, "The required field, item, is missing.")
    /// 4000103: `descriptors` is missing.
    public static let nullDescriptors = Self(400, 4_000_103, "The required field, descriptors, is missing.")
    /// 4000104: `period` is missing.
    public static let nullPeriod = Self(400, 4_000_104, "The required field, period, is missing.")
    /// 4000105: a SKU is missing.
    public static let nullSKU = Self(400, 4_000_105, "The required field, SKU, is missing.")
    /// 4000106: a display name is missing.
    public static let nullDisplayName = Self(400, 4_000_106, "The required field, displayName, is missing.")
    /// 4000107: a description is missing.
    public static let nullDescription = Self(400, 4_000_107, "The required field, description, is missing.")
    /// 4000109: a price is missing.
    public static let nullPrice = Self(400, 4_000_109, "The required field, price, is missing.")
    /// 4000111: `effective` is missing.
    public static let nullEffective = Self(400, 4_000_111, "The required field, effective, is missing.")
    /// 4000122: a SKU names no item of the subscription.
    public static let invalidSKU = Self(400, 4_000_122, "The SKU was invalid.")
    /// 4000123: `refundType` is not `FULL`, `PRORATED` or `CUSTOM`.
    public static let invalidRefundType = Self(400, 4_000_123, "The refundType is invalid.")
    /// 4000124: `refundReason` is not one of Apple's reasons.
    public static let invalidRefundReason = Self(400, 4_000_124, "The refundReason is invalid.")
    /// 4000126: an offer's reason is not `ACQUISITION`, `WIN_BACK` or `RETENTION`.
    public static let invalidOfferReason = Self(400, 4_000_126, "The offer reason is invalid.")
    /// 4000127: the tax code is empty.
    public static let invalidTaxProductCode = Self(400, 4_000_127, "The taxCode is invalid.")
    /// 4000128: an offer's period is not one Apple accepts.
    public static let invalidOfferPeriod = Self(400, 4_000_128, "The offer period is invalid.")
    /// 4000129: an offer's period count is outside 1 to 12.
    public static let invalidOfferPeriodCount = Self(400, 4_000_129, "The offer periodCount is invalid.")
    /// 4000130: the subscription's period is not one Apple accepts.
    public static let invalidRenewalPeriod = Self(400, 4_000_130, "The renewal period is invalid.")
    /// 4000132: an amount is out of range.
    public static let invalidAmount = Self(400, 4_000_132, "The amount is invalid.")
    /// 4000133: the request's storefront is not the customer's.
    public static let mismatchedStorefront = Self(400, 4_000_133, "The storefronts mismatch.")
    /// 4000143: a request names one SKU twice.
    public static let multipleOperationsOnSingleSKU = Self(400, 4_000_143, "Multiple operations on a single SKU isn't allowed.")
    /// 4000152: an offer costs more than its item.
    public static let invalidOfferPrice = Self(400, 4_000_152, "The subscription offer price is higher than the regular subscription price.")
    /// 4000155: `refundAmount` given for a refund type other than `CUSTOM`.
    public static let refundAmountWithoutCustom = Self(400, 4_000_155, "Can't provide the refund amount because the refundType isn't CUSTOM.")
    /// 4000153: a `CUSTOM` refund without a valid `refundAmount`.
    public static let nullRefundAmount = Self(400, 4_000_153, "The refundAmount value is invalid.")
    /// 4000156: `refundReason` is missing.
    public static let nullRefundReason = Self(400, 4_000_156, "The required field, refundReason, is missing.")
    /// 4000157: `refundType` is missing.
    public static let nullRefundType = Self(400, 4_000_157, "The required field, refundType, is missing.")
    /// 4000159: `refundRiskingPreference` is missing.
    public static let nullRefundRisking = Self(400, 4_000_159, "The required field, refundRiskingPreference, is missing.")
    /// 4000160: `items` is present and empty.
    public static let atLeastOneItem = Self(400, 4_000_160, "When included, provide at least one item in items.")
    /// 4000165: a metadata change names neither a display name nor a description.
    public static let atLeastOneOfDisplayNameOrDescription = Self(400, 4_000_165, "Provide either the displayName or a description.")
    /// 4000166: `targetProductId` is missing.
    public static let nullTargetProductID = Self(400, 4_000_166, "The required field, targetProductID, is missing.")
    /// 4000167: `targetProductId` is not an auto-renewable subscription of the app.
    public static let invalidTargetProductID = Self(400, 4_000_167, "The targetProductID value is invalid.")
    /// 4000169: `currentSKU` is missing.
    public static let nullCurrentSKU = Self(400, 4_000_169, "The required field, currentSKU, is missing.")
    /// 4000172: `operation` is missing or not one this call accepts.
    public static let invalidOperation = Self(400, 4_000_172, "The operation is invalid.")
    /// 4000173: the body or the signed request is not the JSON Apple defines.
    public static let malformedPayload = Self(400, 4_000_173, "The payload is malformed.")
    /// 4000174: the in-app request's signature is not valid.
    public static let invalidSignature = Self(400, 4_000_174, "The signature is invalid.")
    /// 4000176: the subscription was migrated already.
    public static let subscriptionAlreadyMigrated = Self(400, 4_000_176, "The subscription was already migrated.")
    /// 4000186: revoking a subscription that is not active.
    public static let revokeOnInactiveSubscription = Self(400, 4_000_186, "Only active subscriptions are revocable.")
    /// 4030008: the transaction is of no Advanced Commerce subscription.
    public static let subscriptionDoesNotExist = Self(403, 4_030_008, "The subscription doesn't exist.")
    /// 4030009: the customer already has this subscription.
    public static let subscriptionAlreadyExists = Self(403, 4_030_009, "The subscription already exists.")
    /// 4030015: the subscription is not active.
    public static let inactiveACASub = Self(403, 4_030_015, "The subscription is not active.")
    /// 4030021: the transaction was refunded already.
    public static let alreadyRefunded = Self(403, 4_030_021, "The transaction was already refunded.")
    /// 4030023: the product is not of the kind the operation needs.
    public static let productNotEligible = Self(403, 4_030_023, "The product isn't eligible for the requested operation.")
    /// 4040010: no transaction of the app has the identifier.
    public static let transactionIdNotFound = Self(404, 4_040_010, "Transaction id not found.")
    /// 5000001: the store failed; retry.
    public static let generalInternalRetryable = Self(500, 5_000_001, "An unknown error occurred. Please try again.")

    /// Checks `requestInfo`: present, with a UUID `requestReferenceId`, and an `appAccountToken` that is a UUID or empty.
    public static func check(_ requestInfo: AdvancedCommerceRequestInfo?) -> Self? {
        guard let requestInfo else { return .nullRequestInfo }
        guard let reference = requestInfo.requestReferenceId else { return .nullRequestReferenceID }
        guard UUIDText.isUUID(reference) else { return .invalidRequestReferenceID }
        if let token = requestInfo.appAccountToken, !token.isEmpty, !UUIDText.isUUID(token) { return .invalidAppAccountToken }
        return nil
    }

    /// Checks descriptors: both present and within Apple's lengths.
    public static func check(_ descriptors: AdvancedCommerceDescriptors) -> Self? {
        guard let description = descriptors.description else { return .nullDescription }
        guard description.count <= 45 else { return .descriptionLengthExceeded }
        guard let displayName = descriptors.displayName else { return .nullDisplayName }
        guard displayName.count <= 30 else { return .displayNameLengthExceeded }
        return nil
    }

    /// Checks a SKU: present and at most 128 characters.
    public static func check(sku: String?) -> Self? {
        guard let sku, !sku.isEmpty else { return .nullSKU }
        return sku.count <= 128 ? nil : .skuLengthExceeded
    }

    /// Checks an in-app request's item: SKU, descriptors, a price that is not negative, and an offer only where allowed.
    static func check(_ item: AdvancedCommerceRequestItem, allowsOffer: Bool) -> Self? {
        if let error = check(sku: item.sku) { return error }
        if let error = check(AdvancedCommerceDescriptors(description: item.description, displayName: item.displayName)) { return error }
        guard let price = item.price else { return .nullPrice }
        guard price >= 0 else { return .negativePrice }
        guard let offer = item.offer else { return nil }
        guard allowsOffer else { return .malformedPayload }
        guard let period = offer.period else { return .nullOfferPeriod }
        guard AdvancedCommerceOffer.periods.contains(period) else { return .invalidOfferPeriod }
        guard let count = offer.periodCount else { return .nullPeriodCount }
        guard (1...12).contains(count) else { return .invalidOfferPeriodCount }
        guard let reason = offer.reason else { return .nullReason }
        guard AdvancedCommerceOffer.reasons.contains(reason) else { return .invalidOfferReason }
        guard let offerPrice = offer.price else { return .nullPrice }
        guard offerPrice >= 0 else { return .negativePrice }
        return offerPrice <= price ? nil : .invalidOfferPrice
    }
}

/// UUID text as Apple accepts it in request fields: any letter case.
enum UUIDText {
    static func isUUID(_ text: String) -> Bool {
        text.count == 36 && UUID(uuidString: text) != nil
    }
}

extension AdvancedCommerceAPIError {
    /// 4000182: a prorated refund of a transaction that is not the subscription's latest.
    public static let proratedOnlyLatestTransaction = Self(400, 4_000_182, "Only requests against the latest transaction can have a PRORATED refundType value.")
    /// 4000184: some items, not all, ask for `SIMULATE_REFUND_DECLINE`.
    public static let partialSimulateRefundDecline = Self(400, 4_000_184, "If one item has a refundReason value of SIMULATE_REFUND_DECLINE, all items must have a refundReason value of SIMULATE_REFUND_DECLINE.")
}

extension AdvancedCommerceAPIError {
    /// 4000154: a refund amount that is not positive.
    public static let negativeRefundAmount = Self(400, 4_000_154, "The refundAmount must be a positive number.")
}
