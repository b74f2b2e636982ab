import AppStoreEngine
import AppStoreFormats
@testable import AppStoreSQLite
import Foundation
import JSONCoding
import StoreKitConfiguration
import Testing

/// The row bodies `SQLiteStorage` writes in one pass read back, with `JSONDecoder` and with the row decoder, as the
/// records that were written, and say what `JSONEncoder` says: stores written before keep working, and so do records
/// that gain fields.
@Suite("Row JSON encoder")
struct RowJSONEncoderTests {
    static let date = Date(timeIntervalSinceReferenceDate: 788_918_400.125)

    /// A transaction with every optional field set, and strings that need escaping.
    static var fullTransaction: TransactionRecord {
        var record = TransactionRecord(
            id: 2_000_000_000_000_017, originalID: 2_000_000_000_000_001, accountID: "ana \"quoted\" \\ back/slash",
            bundleID: "com.example.app", productID: "monthly\nline\ttab\u{1}control é 🎉",
            productType: .autoRenewable, quantity: 3, purchaseDate: date, originalPurchaseDate: date.addingTimeInterval(-86_400.5),
            storefront: Storefront.named("JPN")!, unitPrice: Decimal(string: "4.99")!, amountCharged: Decimal(string: "-14.97")!,
            origin: .restore, state: .failed(errorCode: -2), deviceID: UUID(), applicationUsername: "",
            appAccountToken: UUID(), revocationDate: date.addingTimeInterval(1e-3), revocationReason: .refundedDueToIssue
        )
        record.subscriptionGroupID = "group"
        record.expiresDate = date.addingTimeInterval(30 * 86_400)
        record.revocationType = .familyRevoke
        record.revocationPercentage = 37_500
        record.refundRequest = RefundRequestRecord(
            requestDate: date, reason: .fulfillmentIssue, status: .reversed, decisionDate: date.addingTimeInterval(0.25),
            consumption: [ConsumptionInformation(date: date, version: 2, fields: #"{"deliveryStatus":"DELIVERED","note":"é \"q\""}"#)]
        )
        record.isUpgraded = false
        record.restoredTransactionID = UInt64.max
        record.restoredPurchaseDate = Date(timeIntervalSinceReferenceDate: -1e-7)
        record.offer = offer
        record.billingPlanType = .monthly
        record.commitment = BillingCommitment(billingPeriodNumber: 3, totalBillingPeriods: 12, expiresDate: date.addingTimeInterval(0.5), price: Decimal(string: "42.05")!)
        record.idempotencyKey = "retry-7"
        record.advancedCommerceInfo = advancedCommerceTransaction
        record.advancedCommerceRenewal = advancedCommerceRenewal
        return record
    }

    /// Advanced Commerce transaction information with every field set, and text that needs escaping.
    static var advancedCommerceTransaction: AdvancedCommerceTransactionInfo {
        AdvancedCommerceTransactionInfo(
            descriptors: AdvancedCommerceDescriptors(description: "news \"and\" sports", displayName: "Bundle é", effective: "IMMEDIATELY"), estimatedTax: 410,
            items: [advancedCommerceTransactionItem], period: "P1M", requestReferenceId: "6e2c2d62-1a94-4e39-8b5b-3f7f4fd6c0a1",
            taxCode: "C003-00-2", taxExclusivePrice: 8_980, taxRate: "0.0725"
        )
    }

    /// An Advanced Commerce transaction item with every field set.
    static var advancedCommerceTransactionItem: AdvancedCommerceTransactionItem {
        AdvancedCommerceTransactionItem(
            sku: "sports.live", description: "Live sports", displayName: "Sports", offer: advancedCommerceOffer, price: 3_990,
            refunds: [advancedCommerceRefund], revocationDate: date.addingTimeInterval(0.5)
        )
    }

    /// An Advanced Commerce offer with every field set.
    static let advancedCommerceOffer = AdvancedCommerceOffer(period: "P1M", periodCount: 2, price: 3_990, reason: "ACQUISITION")

    /// An Advanced Commerce refund with every field set.
    static var advancedCommerceRefund: AdvancedCommerceRefund {
        AdvancedCommerceRefund(refundAmount: 1_995, refundDate: date, refundReason: "LEGAL", refundType: "CUSTOM")
    }

    /// Advanced Commerce renewal information with every field set.
    static var advancedCommerceRenewal: AdvancedCommerceRenewalInfo {
        AdvancedCommerceRenewalInfo(
            consistencyToken: "token", descriptors: AdvancedCommerceDescriptors(description: "d", displayName: "n"),
            items: [advancedCommerceRenewalItem], period: "P1Y", requestReferenceId: "6e2c2d62-1a94-4e39-8b5b-3f7f4fd6c0a1", taxCode: "C003"
        )
    }

    /// An Advanced Commerce renewal item with every field set.
    static var advancedCommerceRenewalItem: AdvancedCommerceRenewalItem {
        AdvancedCommerceRenewalItem(
            sku: "news.daily", description: "Daily news", displayName: "News", offer: advancedCommerceOffer, price: 4_990,
            priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo(dependentSKUs: ["sports.live"], price: 5_990, status: "SCHEDULED")
        )
    }

    /// A subscription with every optional field set.
    static var fullSubscription: SubscriptionRecord {
        var subscription = SubscriptionRecord(
            id: 2_000_000_000_000_001, accountID: "ana", bundleID: "com.example.app", groupID: "group", productID: "monthly",
            autoRenewProductID: "yearly", autoRenewEnabled: false, latestTransactionID: 2_000_000_000_000_017,
            originalPurchaseDate: date, appAccountToken: UUID(), periodStartDate: date, expiresDate: date.addingTimeInterval(1e9),
            status: .gracePeriod, expirationIntent: .billingError, renewalCount: Int.max
        )
        subscription.gracePeriodExpiresDate = date.addingTimeInterval(16 * 86_400)
        subscription.billingRetryEndDate = date.addingTimeInterval(60 * 86_400)
        subscription.priceIncrease = .declined
        subscription.offer = offer
        subscription.pendingOffer = SubscriptionOffer(
            type: .introductoryOffer, identifier: nil, discountType: .freeTrial, period: SubscriptionPeriod(value: 1, unit: .week), price: 0, remainingPeriods: 0
        )
        subscription.renewalExtensionDates = [date, date.addingTimeInterval(0.5)]
        subscription.commitment = BillingCommitment(billingPeriodNumber: 12, totalBillingPeriods: 12, expiresDate: date, price: 42)
        subscription.renewalBillingPlanType = .monthly
        subscription.advancedCommerceInfo = advancedCommerceRenewal
        return subscription
    }

    /// A promotional offer with a price that has a fraction.
    static let offer = SubscriptionOffer(
        type: .promotionalOffer, identifier: "spring", discountType: .payAsYouGo, period: SubscriptionPeriod(value: 3, unit: .month),
        price: Decimal(string: "1.49")!, remainingPeriods: 2
    )

    /// A notification with a subscription, a mass extension, two attempts, a redelivery and a claim.
    static var fullNotification: NotificationRecord {
        var notification = NotificationRecord(
            type: .didFailToRenew, subtype: .gracePeriod, date: date, accountID: "ana", bundleID: "com.example.app",
            transactionID: 2_000_000_000_000_017, subscription: fullSubscription,
            massExtension: MassExtensionRecord(
                requestIdentifier: "mass-1", productID: "monthly", bundleID: "com.example.app", storefrontCountryCodes: ["USA"],
                extendByDays: 5, extendReasonCode: 2, requestDate: date, completeDate: date.addingTimeInterval(1), succeededCount: 3, failedCount: 1
            )
        )
        notification.consumptionRequestReason = .unintendedPurchase
        var token = ExternalPurchaseTokenRecord(
            id: "SANDBOX_00000000-0000-0000-0000-000000000001", accountID: "ana", bundleID: "com.example.app", appAppleID: 1_234,
            tokenType: .services, creationDate: date, expirationDate: date.addingTimeInterval(3_600)
        )
        token.reportStatus = "NO_LINE_ITEM"
        token.remindersSent = 2
        notification.externalPurchaseToken = token
        notification.delivery.record(.init(date: date, result: "UNSUCCESSFUL_HTTP_RESPONSE_CODE", httpStatusCode: 500, responseExcerpt: "down"))
        notification.delivery.record(.init(date: date.addingTimeInterval(3_600), result: "TIMED_OUT"))
        notification.delivery.redeliver(from: date.addingTimeInterval(7_200))
        notification.delivery.claim = .init(sender: UUID(), expires: date.addingTimeInterval(7_230.25))
        return notification
    }

    /// An account with every field set, and two apps downloaded.
    static let fullAccount = Account(
        id: "ana", storefront: "ESP", canMakePayments: false, familyID: "family",
        appDownloads: [
            AppDownload(bundleID: "com.example.app", date: date, originalVersion: "1.0", version: "2.1"),
            AppDownload(bundleID: "com.example.other", date: date.addingTimeInterval(1e-3), originalVersion: "7"),
        ]
    )

    @Test("Every record type, with every optional field set, reads back equal and says what JSONEncoder says")
    func recordsRoundTrip() throws {
        try Self.expectRoundTrip(Self.fullTransaction)
        try Self.expectRoundTrip(Self.fullSubscription)
        try Self.expectRoundTrip(Self.fullNotification)
        try Self.expectRoundTrip(Self.fullAccount)
        try Self.expectRoundTrip(PurchaseIntentRecord(accountID: "ana", bundleID: "app", productID: "coins", date: Self.date))
        var plain = Self.fullTransaction
        plain.state = .purchased
        plain.deviceID = nil
        plain.isUpgraded = nil
        try Self.expectRoundTrip(plain)
    }

    @Test("Numbers, dates, data, URLs, nested arrays and dictionaries read back as JSONEncoder's do")
    func valuesRoundTrip() throws {
        try Self.expectRoundTrip(Sample())
        try Self.expectRoundTrip([Self.date, Date(timeIntervalSince1970: 0), Date.distantPast, Date.distantFuture])
        try Self.expectRoundTrip([0.0, -0.0, 0.1, -1.5, 1e-7, 1e300, 123_456_789_012_345_678.0, 0x1p53, -0x1p60, .leastNonzeroMagnitude])
        try Self.expectRoundTrip([Decimal(string: "0.000001")!, Decimal(string: "-123456789.987654321")!, 0, Decimal(Int64.max)])
        try Self.expectRoundTrip("top-level string")
        try Self.expectRoundTrip(42)
        try Self.expectRoundTrip(Optional<Int>.none)
    }

    @Test("A value that encodes nothing is an empty object, as with JSONEncoder")
    func emptyValue() throws {
        #expect(try RowJSONEncoder().encode(Nothing()) == "{}")
        #expect(try RowJSONEncoder().encode(["a": Nothing()]) == #"{"a":{}}"#)
    }

    @Test("Records with every optional field set, written to SQLite, read back equal from a store opened afresh")
    func sqliteRoundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-rows-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store.sqlite")
        let transaction = Self.fullTransaction, subscription = Self.fullSubscription, notification = Self.fullNotification
        let account = Account(id: transaction.accountID, storefront: "JPN", canMakePayments: false, familyID: "family")
        try await SQLiteStorage(url: url).transaction(tenant: "t") { storage in
            try storage.write([.saveAccount(account), .saveTransaction(transaction), .saveSubscription(subscription), .saveNotification(notification)])
        }
        let reopened = try SQLiteStorage(url: url)
        let read = try await reopened.read(tenant: "t") { reader in
            (try reader.account(id: account.id), try reader.transaction(id: transaction.id), try reader.subscription(id: subscription.id),
             try reader.notifications(matching: NotificationQuery()))
        }
        #expect(read.0 == account)
        #expect(read.1 == transaction)
        #expect(read.2 == subscription)
        #expect(read.3 == [notification])
    }

    @Test("Conformances one pass cannot follow are encoded by JSONEncoder instead; a container asked for twice is one object")
    func fallsBack() throws {
        try Self.expectRoundTrip(Subclass())
        try Self.expectRoundTrip(LateWriter(first: 1, second: "two"))
        try Self.expectRoundTrip(TwoContainers(a: 1, b: 2))
    }

    @Test("A non-finite number is refused, as JSONEncoder refuses it")
    func nonFiniteThrows() {
        #expect(throws: EncodingError.self) { try RowJSONEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try RowJSONEncoder().encode(["x": Double.infinity]) }
    }

    /// `value` encoded in one pass decodes equal with `JSONDecoder`, and is the same JSON as `JSONEncoder`'s but for
    /// key order and number spelling.
    static func expectRoundTrip<T: Codable & Equatable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = try RowJSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(T.self, from: Data(text.utf8))
        #expect(decoded == value, "\(text)", sourceLocation: sourceLocation)
        let reference = try JSONEncoder().encode(value)
        #expect(try JSONReader().decode(T.self, from: text) == value, "\(text)", sourceLocation: sourceLocation)
        #expect(try JSONReader().decode(T.self, from: String(decoding: reference, as: UTF8.self)) == value, sourceLocation: sourceLocation)
        let ours = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        let theirs = try JSONSerialization.jsonObject(with: reference, options: .fragmentsAllowed)
        #expect(normalized(ours) == normalized(theirs), "\(text)\n\(String(decoding: reference, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    /// A comparable rendering of a parsed JSON value: object keys sorted, numbers by value.
    static func normalized(_ value: Any) -> String {
        switch value {
        case let object as [String: Any]:
            "{" + object.keys.sorted().map { "\($0):\(normalized(object[$0]!))" }.joined(separator: ",") + "}"
        case let array as [Any]:
            "[" + array.map(normalized).joined(separator: ",") + "]"
        case let number as NSNumber where !(value is String):
            "\(number.doubleValue + 0)"  // -0 and 0 alike
        case let string as String:
            "\"\(string)\""
        default:
            "\(value)"
        }
    }

    struct Sample: Codable, Equatable {
        var int8: Int8 = .min
        var int16: Int16 = .min
        var int32: Int32 = .min
        var int64: Int64 = .min
        var int = -1
        var uint8: UInt8 = .max
        var uint16: UInt16 = .max
        var uint32: UInt32 = .max
        var uint64: UInt64 = .max
        var uint: UInt = 0
        var float: Float = 0.1
        var double = -2.5e-300
        var bool = true
        var string = "\u{0}\u{1f}\u{7f}\u{2028}"
        var data = Data([0, 1, 2, 254, 255])
        var url = URL(string: "https://example.com/a?b=c&d=%20")!
        var uuid = UUID()
        var decimal = Decimal(string: "-0.5")!
        var null: Int? = nil
        var nested: [[Int]] = [[], [1], [2, 3]]
        var dictionary: [String: [String: Double]] = ["a": ["b": 1.5], "c": [:]]
        var intKeys: [Int: String] = [1: "one", -2: "minus two"]
        var optionals: [Int?] = [1, nil, 3]
        var state: TransactionState = .failed(errorCode: 7)
        var states: [TransactionState] = [.purchased, .declined]
    }

    struct Nothing: Codable, Equatable {
        func encode(to encoder: any Encoder) throws {}
        init() {}
        init(from decoder: any Decoder) throws {}
    }

    class Base: Codable, Equatable {
        var base = 1
        static func == (lhs: Base, rhs: Base) -> Bool { lhs.base == rhs.base }
    }

    final class Subclass: Base {
        var own = "own"
        enum CodingKeys: CodingKey { case own }
        override init() { super.init() }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            own = try container.decode(String.self, forKey: .own)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(own, forKey: .own)
            try super.encode(to: container.superEncoder())
        }
    }

    /// Writes into its object after a nested container it opened later: fine for a tree, not for one pass.
    struct LateWriter: Codable, Equatable {
        var first: Int
        var second: String
        enum CodingKeys: CodingKey { case first, nested, second }
        enum NestedKeys: CodingKey { case value }
        init(first: Int, second: String) {
            self.first = first
            self.second = second
        }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            first = try container.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested).decode(Int.self, forKey: .value)
            second = try container.decode(String.self, forKey: .second)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var nested = container.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested)
            try container.encode(second, forKey: .second)
            try nested.encode(first, forKey: .value)
        }
    }

    /// Asks its encoder for its keyed container twice, with two key types.
    struct TwoContainers: Codable, Equatable {
        var a: Int
        var b: Int
        enum AKeys: CodingKey { case a }
        enum BKeys: CodingKey { case b }
        init(a: Int, b: Int) {
            self.a = a
            self.b = b
        }
        init(from decoder: any Decoder) throws {
            a = try decoder.container(keyedBy: AKeys.self).decode(Int.self, forKey: .a)
            b = try decoder.container(keyedBy: BKeys.self).decode(Int.self, forKey: .b)
        }
        func encode(to encoder: any Encoder) throws {
            var first = encoder.container(keyedBy: AKeys.self)
            try first.encode(a, forKey: .a)
            var second = encoder.container(keyedBy: BKeys.self)
            try second.encode(b, forKey: .b)
        }
    }
}
