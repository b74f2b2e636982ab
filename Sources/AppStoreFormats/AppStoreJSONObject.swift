package import Foundation
import JSONCoding

/// A payload that writes its own JSON object, field by field, in ``AppStoreJSON``'s form.
///
/// The store signs a transaction with every purchase and renewal: through `Encodable`, the encoding of one
/// transaction cost as much as a third of its P-256 signature (`storekit bench jws-sign`), most of it in the
/// generic container machinery. The payloads signed most write themselves here instead; a test holds each to
/// exactly the bytes its `Encodable` conformance gives, with every field set.
protocol AppStoreJSONWritable {
    /// Writes every set field, in the order `Encodable` would.
    func writeFields(to object: inout AppStoreJSONObject)
}

/// A JSON object being written: compact, absent values omitted, dates as integer milliseconds, UUIDs lowercase.
/// Fields appear in the order they are written.
package struct AppStoreJSONObject {
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]

    /// An empty object.
    package init() {
        bytes.reserveCapacity(1_024)
    }

    /// The finished object.
    package mutating func finish() -> Data {
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    private mutating func key(_ key: some CodingKey) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.appendJSONString(key.stringValue)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes the field, unless the value is absent.
    package mutating func write(_ key: some CodingKey, _ value: String?) {
        guard let value else { return }
        self.key(key)
        bytes.appendJSONString(value)
    }

    /// Writes the field, unless the value is absent.
    package mutating func write(_ key: some CodingKey, _ value: (some BinaryInteger)?) {
        guard let value else { return }
        self.key(key)
        bytes.appendJSONInteger(value)
    }

    /// Writes the field, unless the value is absent.
    package mutating func write(_ key: some CodingKey, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes the field, unless the value is absent.
    package mutating func write(_ key: some CodingKey, _ value: Date?) {
        write(key, value.map(ReceiptDate.milliseconds(from:)))
    }

    /// Writes the field, unless the value is absent.
    package mutating func write(_ key: some CodingKey, _ value: UUID?) {
        write(key, value.map { $0.uuidString.lowercased() })
    }

    /// Writes the field as a nested object, unless the value is absent.
    mutating func write(_ key: some CodingKey, _ value: (some AppStoreJSONWritable)?) {
        guard let value else { return }
        self.key(key)
        var nested = AppStoreJSONObject()
        value.writeFields(to: &nested)
        bytes.append(contentsOf: nested.finish())
    }

    /// Writes the field as the value's own `Encodable` conformance writes it in ``AppStoreJSON``'s form, unless the
    /// value is absent: for the nested objects of rarely signed fields.
    mutating func write(_ key: some CodingKey, encoding value: (some Encodable)?) {
        guard let value, let data = try? AppStoreJSON.encodeThroughCodable(value) else { return }
        self.key(key)
        bytes.append(contentsOf: data)
    }

    /// Writes the field, unless the value is absent.
    package mutating func write(_ key: some CodingKey, _ values: [String]?) {
        guard let values else { return }
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.appendJSONString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension JWSTransactionDecodedPayload: AppStoreJSONWritable {
    func writeFields(to object: inout AppStoreJSONObject) {
        object.write(CodingKeys.transactionId, transactionId)
        object.write(CodingKeys.originalTransactionId, originalTransactionId)
        object.write(CodingKeys.webOrderLineItemId, webOrderLineItemId)
        object.write(CodingKeys.bundleId, bundleId)
        object.write(CodingKeys.productId, productId)
        object.write(CodingKeys.subscriptionGroupIdentifier, subscriptionGroupIdentifier)
        object.write(CodingKeys.purchaseDate, purchaseDate)
        object.write(CodingKeys.originalPurchaseDate, originalPurchaseDate)
        object.write(CodingKeys.expiresDate, expiresDate)
        object.write(CodingKeys.quantity, quantity)
        object.write(CodingKeys.rawType, rawType)
        object.write(CodingKeys.appAccountToken, appAccountToken)
        object.write(CodingKeys.deviceVerification, deviceVerification)
        object.write(CodingKeys.deviceVerificationNonce, deviceVerificationNonce)
        object.write(CodingKeys.rawInAppOwnershipType, rawInAppOwnershipType)
        object.write(CodingKeys.signedDate, signedDate)
        object.write(CodingKeys.rawRevocationReason, rawRevocationReason)
        object.write(CodingKeys.revocationDate, revocationDate)
        object.write(CodingKeys.rawRevocationType, rawRevocationType)
        object.write(CodingKeys.revocationPercentage, revocationPercentage)
        object.write(CodingKeys.isUpgraded, isUpgraded)
        object.write(CodingKeys.rawOfferType, rawOfferType)
        object.write(CodingKeys.offerIdentifier, offerIdentifier)
        object.write(CodingKeys.rawOfferDiscountType, rawOfferDiscountType)
        object.write(CodingKeys.offerPeriod, offerPeriod)
        object.write(CodingKeys.rawEnvironment, rawEnvironment)
        object.write(CodingKeys.rawTransactionReason, rawTransactionReason)
        object.write(CodingKeys.storefront, storefront)
        object.write(CodingKeys.storefrontId, storefrontId)
        object.write(CodingKeys.price, price)
        object.write(CodingKeys.currency, currency)
        object.write(CodingKeys.appTransactionId, appTransactionId)
        object.write(CodingKeys.billingPlanType, billingPlanType)
        object.write(CodingKeys.commitmentInfo, commitmentInfo)
        object.write(CodingKeys.advancedCommerceInfo, encoding: advancedCommerceInfo)
    }
}

extension JWSRenewalInfoDecodedPayload: AppStoreJSONWritable {
    func writeFields(to object: inout AppStoreJSONObject) {
        object.write(CodingKeys.rawExpirationIntent, rawExpirationIntent)
        object.write(CodingKeys.originalTransactionId, originalTransactionId)
        object.write(CodingKeys.autoRenewProductId, autoRenewProductId)
        object.write(CodingKeys.productId, productId)
        object.write(CodingKeys.rawAutoRenewStatus, rawAutoRenewStatus)
        object.write(CodingKeys.isInBillingRetryPeriod, isInBillingRetryPeriod)
        object.write(CodingKeys.rawPriceIncreaseStatus, rawPriceIncreaseStatus)
        object.write(CodingKeys.gracePeriodExpiresDate, gracePeriodExpiresDate)
        object.write(CodingKeys.rawOfferType, rawOfferType)
        object.write(CodingKeys.offerIdentifier, offerIdentifier)
        object.write(CodingKeys.signedDate, signedDate)
        object.write(CodingKeys.rawEnvironment, rawEnvironment)
        object.write(CodingKeys.recentSubscriptionStartDate, recentSubscriptionStartDate)
        object.write(CodingKeys.renewalDate, renewalDate)
        object.write(CodingKeys.renewalPrice, renewalPrice)
        object.write(CodingKeys.currency, currency)
        object.write(CodingKeys.rawOfferDiscountType, rawOfferDiscountType)
        object.write(CodingKeys.offerPeriod, offerPeriod)
        object.write(CodingKeys.eligibleWinBackOfferIds, eligibleWinBackOfferIds)
        object.write(CodingKeys.appAccountToken, appAccountToken)
        object.write(CodingKeys.appTransactionId, appTransactionId)
        object.write(CodingKeys.renewalBillingPlanType, renewalBillingPlanType)
        object.write(CodingKeys.commitmentInfo, commitmentInfo)
        object.write(CodingKeys.deviceVerification, deviceVerification)
        object.write(CodingKeys.deviceVerificationNonce, deviceVerificationNonce)
        object.write(CodingKeys.advancedCommerceInfo, encoding: advancedCommerceInfo)
    }
}

extension TransactionCommitmentInfo: AppStoreJSONWritable {
    func writeFields(to object: inout AppStoreJSONObject) {
        object.write(CodingKeys.billingPeriodNumber, billingPeriodNumber)
        object.write(CodingKeys.commitmentExpiresDate, commitmentExpiresDate)
        object.write(CodingKeys.commitmentPrice, commitmentPrice)
        object.write(CodingKeys.totalBillingPeriods, totalBillingPeriods)
    }
}

extension RenewalCommitmentInfo: AppStoreJSONWritable {
    func writeFields(to object: inout AppStoreJSONObject) {
        object.write(CodingKeys.commitmentAutoRenewProductId, commitmentAutoRenewProductId)
        object.write(CodingKeys.rawCommitmentAutoRenewStatus, rawCommitmentAutoRenewStatus)
        object.write(CodingKeys.commitmentRenewalBillingPlanType, commitmentRenewalBillingPlanType)
        object.write(CodingKeys.commitmentRenewalDate, commitmentRenewalDate)
        object.write(CodingKeys.commitmentRenewalPrice, commitmentRenewalPrice)
    }
}
