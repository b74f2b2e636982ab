import AppStoreFormats
import Foundation
import JSONCoding
import StoreKitConfiguration

/// A record that writes its own row body: the text its synthesized `Encodable` conformance makes ``RowJSONEncoder``
/// write, byte for byte, without going through `Encoder`'s generic containers.
///
/// Every purchase writes a transaction and a notification, and every renewal a subscription too; through the
/// containers (a dynamic cast, a witness-table lookup and a boxed key per field) those bodies were a twentieth of the
/// server's CPU per purchase. Fields go in declaration order and optional ones are left out when `nil`, as the
/// synthesized conformance does; `RowJSONWritableTests` checks every record against that conformance, with every field
/// set, so a field added to a record and not here fails a test instead of going unsaved.
package protocol RowJSONWritable {
    /// Writes the record's members into the object `json` has open.
    ///
    /// - Throws: `EncodingError` when `JSONEncoder` would throw too: a non-finite date, a NaN price.
    func writeRowJSON(to json: inout RowJSONObjectWriter) throws
}

/// Writes JSON objects' members, in the order they are given, into one byte buffer.
package struct RowJSONObjectWriter {
    /// The text written so far.
    private var bytes: [UInt8] = []
    private var isFirstMember = true

    /// The JSON text of `record`.
    package static func text(of record: some RowJSONWritable) throws -> String {
        var writer = RowJSONObjectWriter()
        writer.bytes.reserveCapacity(1024)
        try writer.writeObject(record)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Writes `record` as an object where a value goes.
    private mutating func writeObject(_ record: some RowJSONWritable) throws {
        bytes.append(UInt8(ascii: "{"))
        isFirstMember = true
        try record.writeRowJSON(to: &self)
        bytes.append(UInt8(ascii: "}"))
        isFirstMember = false
    }

    /// Writes the member's key; keys are plain ASCII identifiers, which need no escaping.
    private mutating func key(_ key: StaticString) {
        if !isFirstMember { bytes.append(UInt8(ascii: ",")) }
        isFirstMember = false
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }

    private static func invalid(_ value: Any, _ key: StaticString) -> EncodingError {
        .invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "\(key) is not a number JSON can hold: \(value)."))
    }

    // MARK: Members

    mutating func write(_ key: StaticString, _ value: String) {
        self.key(key)
        bytes.appendJSONString(value)
    }

    mutating func write(_ key: StaticString, _ value: some BinaryInteger) {
        self.key(key)
        bytes.appendJSONInteger(value)
    }

    mutating func write(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    /// A date as `Date`'s own conformance writes it: seconds since 2001.
    mutating func write(_ key: StaticString, _ value: Date) throws {
        self.key(key)
        guard bytes.appendJSONDate(value, as: .secondsSince2001) else { throw Self.invalid(value, key) }
    }

    mutating func write(_ key: StaticString, _ value: Decimal) throws {
        self.key(key)
        guard bytes.appendJSONNumber(value) else { throw Self.invalid(value, key) }
    }

    mutating func write(_ key: StaticString, _ value: UUID) {
        write(key, value.storedText)
    }

    mutating func write<Value: RawRepresentable>(_ key: StaticString, _ value: Value) where Value.RawValue == String {
        write(key, value.rawValue)
    }

    mutating func write<Value: RawRepresentable>(_ key: StaticString, _ value: Value) where Value.RawValue: BinaryInteger {
        write(key, value.rawValue)
    }

    /// A nested record.
    mutating func write(_ key: StaticString, _ value: some RowJSONWritable) throws {
        self.key(key)
        try writeObject(value)
    }

    /// An array of dates.
    mutating func write(_ key: StaticString, _ values: [Date]) throws {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            guard bytes.appendJSONDate(value, as: .secondsSince2001) else { throw Self.invalid(value, key) }
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An array of strings.
    mutating func write(_ key: StaticString, _ values: [String]) {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.appendJSONString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// An array of nested records.
    mutating func write(_ key: StaticString, _ values: [some RowJSONWritable]) throws {
        self.key(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            try writeObject(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    // MARK: Optional members, left out when nil (as `encodeIfPresent` does)

    mutating func writeIfPresent(_ key: StaticString, _ value: String?) {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent(_ key: StaticString, _ value: (some BinaryInteger)?) {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent(_ key: StaticString, _ value: Bool?) {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent(_ key: StaticString, _ value: Date?) throws {
        if let value { try write(key, value) }
    }

    mutating func writeIfPresent(_ key: StaticString, _ value: UUID?) {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent<Value: RawRepresentable>(_ key: StaticString, _ value: Value?) where Value.RawValue == String {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent<Value: RawRepresentable>(_ key: StaticString, _ value: Value?) where Value.RawValue: BinaryInteger {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent(_ key: StaticString, _ value: (some RowJSONWritable)?) throws {
        if let value { try write(key, value) }
    }

    mutating func writeIfPresent(_ key: StaticString, _ values: [Date]?) throws {
        if let values { try write(key, values) }
    }
}

// MARK: - The records

extension TransactionRecord: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("id", id)
        json.write("originalID", originalID)
        json.write("accountID", accountID)
        json.write("bundleID", bundleID)
        json.write("productID", productID)
        json.write("productType", productType)
        json.write("quantity", quantity)
        try json.write("purchaseDate", purchaseDate)
        try json.write("originalPurchaseDate", originalPurchaseDate)
        json.write("storefront", storefront)
        json.write("storefrontID", storefrontID)
        json.write("currency", currency)
        try json.write("unitPrice", unitPrice)
        try json.write("amountCharged", amountCharged)
        json.write("origin", origin)
        try json.write("state", state)
        json.writeIfPresent("deviceID", deviceID)
        json.writeIfPresent("applicationUsername", applicationUsername)
        json.writeIfPresent("appAccountToken", appAccountToken)
        json.writeIfPresent("subscriptionGroupID", subscriptionGroupID)
        try json.writeIfPresent("expiresDate", expiresDate)
        try json.writeIfPresent("revocationDate", revocationDate)
        json.writeIfPresent("revocationReason", revocationReason)
        json.writeIfPresent("revocationType", revocationType)
        json.writeIfPresent("revocationPercentage", revocationPercentage)
        try json.writeIfPresent("refundRequest", refundRequest)
        json.writeIfPresent("isUpgraded", isUpgraded)
        try json.writeIfPresent("offer", offer)
        json.writeIfPresent("billingPlanType", billingPlanType)
        try json.writeIfPresent("commitment", commitment)
        json.writeIfPresent("restoredTransactionID", restoredTransactionID)
        try json.writeIfPresent("restoredPurchaseDate", restoredPurchaseDate)
        json.writeIfPresent("idempotencyKey", idempotencyKey)
        try json.writeIfPresent("advancedCommerceInfo", advancedCommerceInfo)
        try json.writeIfPresent("advancedCommerceRenewal", advancedCommerceRenewal)
    }
}

/// As the synthesized conformance of an enum with associated values writes it: `{"purchased":{}}`,
/// `{"failed":{"errorCode":2}}`.
extension TransactionState: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        switch self {
        case .purchased: try json.write("purchased", EmptyObject())
        case .pendingApproval: try json.write("pendingApproval", EmptyObject())
        case .declined: try json.write("declined", EmptyObject())
        case .interrupted: try json.write("interrupted", EmptyObject())
        case .failed(let errorCode): try json.write("failed", FailedPayload(errorCode: errorCode))
        }
    }

    private struct EmptyObject: RowJSONWritable {
        func writeRowJSON(to json: inout RowJSONObjectWriter) {}
    }

    private struct FailedPayload: RowJSONWritable {
        let errorCode: Int
        func writeRowJSON(to json: inout RowJSONObjectWriter) {
            json.write("errorCode", errorCode)
        }
    }
}

extension SubscriptionOffer: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("type", type)
        json.writeIfPresent("identifier", identifier)
        json.write("discountType", discountType)
        json.write("period", period.iso8601)
        try json.write("price", price)
        json.write("remainingPeriods", remainingPeriods)
    }
}

extension SubscriptionRecord: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("id", id)
        json.write("accountID", accountID)
        json.write("bundleID", bundleID)
        json.write("groupID", groupID)
        json.write("productID", productID)
        json.write("autoRenewProductID", autoRenewProductID)
        json.write("autoRenewEnabled", autoRenewEnabled)
        json.write("latestTransactionID", latestTransactionID)
        try json.write("originalPurchaseDate", originalPurchaseDate)
        json.writeIfPresent("appAccountToken", appAccountToken)
        try json.write("recentStartDate", recentStartDate)
        try json.write("periodStartDate", periodStartDate)
        try json.write("expiresDate", expiresDate)
        json.write("status", status)
        json.writeIfPresent("expirationIntent", expirationIntent)
        json.write("renewalCount", renewalCount)
        try json.writeIfPresent("gracePeriodExpiresDate", gracePeriodExpiresDate)
        try json.writeIfPresent("billingRetryEndDate", billingRetryEndDate)
        try json.writeIfPresent("offer", offer)
        try json.writeIfPresent("pendingOffer", pendingOffer)
        try json.writeIfPresent("renewalExtensionDates", renewalExtensionDates)
        json.writeIfPresent("priceIncrease", priceIncrease)
        try json.writeIfPresent("commitment", commitment)
        json.writeIfPresent("renewalBillingPlanType", renewalBillingPlanType)
        try json.writeIfPresent("advancedCommerceInfo", advancedCommerceInfo)
    }
}

extension BillingCommitment: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("billingPeriodNumber", billingPeriodNumber)
        json.write("totalBillingPeriods", totalBillingPeriods)
        try json.write("expiresDate", expiresDate)
        try json.write("price", price)
    }
}

extension NotificationRecord: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("id", id)
        json.write("type", type)
        json.writeIfPresent("subtype", subtype)
        try json.write("date", date)
        json.write("accountID", accountID)
        json.write("bundleID", bundleID)
        json.write("transactionID", transactionID)
        json.write("originalTransactionID", originalTransactionID)
        try json.writeIfPresent("subscription", subscription)
        try json.writeIfPresent("massExtension", massExtension)
        json.writeIfPresent("consumptionRequestReason", consumptionRequestReason)
        try json.writeIfPresent("externalPurchaseToken", externalPurchaseToken)
        try json.write("delivery", delivery)
    }
}

extension ExternalPurchaseTokenRecord: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("id", id)
        json.write("accountID", accountID)
        json.write("bundleID", bundleID)
        json.write("appAppleID", appAppleID)
        json.writeIfPresent("tokenType", tokenType)
        try json.write("creationDate", creationDate)
        try json.writeIfPresent("expirationDate", expirationDate)
        json.writeIfPresent("reportStatus", reportStatus)
        json.write("unreportedSent", unreportedSent)
        json.write("remindersSent", remindersSent)
    }
}

extension RefundRequestRecord: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        try json.write("requestDate", requestDate)
        json.write("reason", reason)
        json.write("status", status)
        try json.writeIfPresent("decisionDate", decisionDate)
        try json.write("consumption", consumption)
    }
}

extension ConsumptionInformation: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        try json.write("date", date)
        json.write("version", version)
        json.write("fields", fields)
    }
}

extension MassExtensionRecord: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("requestIdentifier", requestIdentifier)
        json.write("productID", productID)
        json.write("bundleID", bundleID)
        json.write("storefrontCountryCodes", storefrontCountryCodes)
        json.write("extendByDays", extendByDays)
        json.write("extendReasonCode", extendReasonCode)
        try json.write("requestDate", requestDate)
        json.write("complete", complete)
        try json.writeIfPresent("completeDate", completeDate)
        json.write("succeededCount", succeededCount)
        json.write("failedCount", failedCount)
    }
}

extension NotificationDelivery: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("state", state)
        try json.write("attempts", attempts)
        try json.writeIfPresent("nextAttemptDate", nextAttemptDate)
        json.writeIfPresent("attemptsBeforeRedelivery", attemptsBeforeRedelivery)
        try json.writeIfPresent("claim", claim)
    }
}

extension NotificationDelivery.Attempt: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        try json.write("date", date)
        json.write("result", result)
        json.writeIfPresent("httpStatusCode", httpStatusCode)
        json.writeIfPresent("responseExcerpt", responseExcerpt)
    }
}

extension NotificationDelivery.Claim: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("sender", sender)
        try json.write("expires", expires)
    }
}

extension Account: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("id", id)
        json.write("storefront", storefront)
        json.write("canMakePayments", canMakePayments)
        json.writeIfPresent("familyID", familyID)
        if !appDownloads.isEmpty { try json.write("appDownloads", appDownloads) }
    }
}

extension AppDownload: RowJSONWritable {
    package func writeRowJSON(to json: inout RowJSONObjectWriter) throws {
        json.write("bundleID", bundleID)
        try json.write("date", date)
        json.write("originalVersion", originalVersion)
        json.write("version", version)
    }
}
