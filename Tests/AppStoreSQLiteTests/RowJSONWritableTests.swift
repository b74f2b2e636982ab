import AppStoreEngine
import AppStoreFormats
import Foundation
import StoreKitConfiguration
import Testing

/// The records that write their own row bodies write exactly what their `Encodable` conformances make the row encoder
/// write: the same bytes, so stored rows read back the same and a field a record gains cannot be left unsaved.
@Suite("Records writing their own rows")
struct RowJSONWritableTests {
    typealias Fixtures = RowJSONEncoderTests

    @Test("An identifier is stored as Foundation's uuidString writes it, whatever its bytes")
    func identifiersAsFoundationWritesThem() {
        let edges = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), UUID(uuid: (
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF
        )), UUID(uuid: (0x09, 0x0A, 0x90, 0xA0, 0x0F, 0xF0, 0x19, 0x9A, 0xAF, 0xFA, 0x01, 0x10, 0x5C, 0xC5, 0x7E, 0xE7))]
        for id in edges + (0..<1_000).map({ _ in UUID() }) {
            #expect(id.storedText == id.uuidString)
        }
    }

    @Test("Each record with every field set is written byte for byte as through its Encodable conformance")
    func everyFieldAsTheConformanceWritesIt() throws {
        let records: [any Encodable & RowJSONWritable] = [
            Fixtures.fullTransaction, Fixtures.fullSubscription, Fixtures.fullNotification, Fixtures.offer,
            Fixtures.fullNotification.delivery, Fixtures.fullNotification.delivery.attempts[0],
            Fixtures.fullNotification.delivery.claim!, Fixtures.fullTransaction.refundRequest!,
            Fixtures.fullTransaction.refundRequest!.consumption[0], Fixtures.fullAccount,
            Fixtures.advancedCommerceTransaction, Fixtures.advancedCommerceTransactionItem, Fixtures.advancedCommerceOffer,
            Fixtures.advancedCommerceRefund, Fixtures.advancedCommerceRenewal, Fixtures.advancedCommerceRenewalItem,
            Fixtures.advancedCommerceRenewalItem.priceIncreaseInfo!, Fixtures.advancedCommerceTransaction.descriptors!,
            Fixtures.fullNotification.externalPurchaseToken!,
        ]
        for record in records {
            // A field the fixture leaves nil would be left out by both writers alike: the fixtures set every one.
            let unset = Self.nilFields(of: record)
            #expect(unset.isEmpty, "\(type(of: record)) fixture leaves \(unset) nil: set it, so its writing is checked")
            try Self.expectSameText(record)
        }
    }

    @Test("Every transaction state, optional fields left out, and text that needs escaping, as the conformance writes them")
    func variants() throws {
        let states: [TransactionState] = [.purchased, .pendingApproval, .declined, .interrupted, .failed(errorCode: 0), .failed(errorCode: -7)]
        for state in states {
            var record = Fixtures.fullTransaction
            record.state = state
            try Self.expectSameText(record)
        }
        let bare = TransactionRecord(
            id: 1, originalID: 1, accountID: "a", bundleID: "b", productID: "p", productType: .consumable, quantity: 1,
            purchaseDate: Date(timeIntervalSince1970: 0), originalPurchaseDate: Date(timeIntervalSince1970: 0),
            storefront: Storefront.named("USA")!, unitPrice: 0, amountCharged: 0, origin: .purchase, state: .purchased
        )
        try Self.expectSameText(bare)
        try Self.expectSameText(Account(id: "\u{0}\u{1F}\"\\", storefront: "USA"))
        let oneTimeCharge = NotificationRecord(type: .oneTimeCharge, date: Fixtures.date, accountID: "a", bundleID: "b", transactionID: 9)
        try Self.expectSameText(oneTimeCharge)
        let summary = NotificationRecord(
            type: .renewalExtension, subtype: .summary, date: Fixtures.date, accountID: "", bundleID: "b", transactionID: 0,
            massExtension: MassExtensionRecord(
                requestIdentifier: "r\"1", productID: "p", bundleID: "b", storefrontCountryCodes: ["USA", "FRA"], extendByDays: 3,
                extendReasonCode: 1, requestDate: Fixtures.date, completeDate: Fixtures.date, succeededCount: 2, failedCount: 1
            )
        )
        try Self.expectSameText(summary)
        var noDates = Fixtures.fullSubscription
        noDates.renewalExtensionDates = []
        try Self.expectSameText(noDates)
    }

    @Test("A date JSON cannot hold is refused, as through the conformance")
    func nonFiniteDateThrows() {
        var record = Fixtures.fullTransaction
        record.expiresDate = Date(timeIntervalSinceReferenceDate: .infinity)
        #expect(throws: EncodingError.self) { try RowJSONEncoder().encodeThroughConformance(record) }
        #expect(throws: EncodingError.self) { try RowJSONEncoder().encode(record) }
    }

    static func expectSameText(_ record: some Encodable & RowJSONWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let own = try RowJSONEncoder().encode(record)
        let conformance = try RowJSONEncoder().encodeThroughConformance(record)
        #expect(own == conformance, "\(type(of: record))", sourceLocation: sourceLocation)
    }

    /// The labels of `value`'s stored properties that are `nil`.
    static func nilFields(of value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            let mirror = Mirror(reflecting: child.value)
            return mirror.displayStyle == .optional && mirror.children.isEmpty ? child.label : nil
        }
    }
}
