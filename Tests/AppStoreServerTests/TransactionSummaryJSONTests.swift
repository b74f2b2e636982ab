import AppStoreEngine
import AppStoreFormats
import Foundation
import Testing

@testable import AppStoreServer

@Suite("A transaction summary's control-API JSON")
struct TransactionSummaryJSONTests {
    let date = Date(timeIntervalSince1970: 1_768_478_400)

    /// What the control API answered before the summary wrote its own JSON.
    func encoded(_ summary: TransactionSummary) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(summary)
    }

    func summary() -> TransactionSummary {
        TransactionSummary(TransactionRecord(
            id: 2_000_000_000_000_042, originalID: 2_000_000_000_000_040, accountID: "alice", bundleID: "com.example.app",
            productID: "com.example.monthly", productType: .autoRenewable, quantity: 1, purchaseDate: date,
            originalPurchaseDate: date.addingTimeInterval(-86_400), storefront: Storefront.named("FRA")!,
            unitPrice: Decimal(string: "4.99")!, amountCharged: Decimal(string: "4.99")!, origin: .renewal, state: .purchased
        ))
    }

    @Test("With every field set, it is byte for byte what JSONEncoder with sorted keys writes")
    func everyField() throws {
        var summary = summary()
        summary.expiresDate = "2026-02-15T12:00:00Z"
        summary.revocationDate = "2026-01-20T08:30:00Z"
        summary.revocationReason = 1
        summary.revocationType = "REFUND_PRORATED"
        summary.revocationPercentage = 50_000
        summary.refundRequest = RefundRequestSummary(RefundRequestRecord(
            requestDate: date, reason: .legal, status: .refunded, decisionDate: date,
            consumption: [ConsumptionInformation(date: date, version: 2, fields: #"{"customerConsented":true}"#)]
        ))
        summary.offerType = 2
        summary.offerIdentifier = "win-back"
        summary.offerDiscountType = "PAY_AS_YOU_GO"
        summary.signedTransaction = "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl"
        for child in Mirror(reflecting: summary).children {
            let field = Mirror(reflecting: child.value)
            if field.displayStyle == .optional, field.children.isEmpty {
                Issue.record("\(child.label ?? "?") is nil: set it here, so that its line in controlJSON() is checked")
            }
        }
        #expect(String(decoding: summary.controlJSON(), as: UTF8.self) == String(decoding: try encoded(summary), as: UTF8.self))
        // Without a refund request the summary writes its fields itself: each of its lines is checked too.
        summary.refundRequest = nil
        #expect(String(decoding: summary.controlJSON(), as: UTF8.self) == String(decoding: try encoded(summary), as: UTF8.self))
    }

    @Test("Absent fields are left out, as JSONEncoder leaves them out")
    func absentFields() throws {
        let summary = summary()
        #expect(summary.expiresDate == nil && summary.signedTransaction == nil)
        #expect(String(decoding: summary.controlJSON(), as: UTF8.self) == String(decoding: try encoded(summary), as: UTF8.self))
    }

    @Test("Quotes, backslashes, control characters and non-ASCII text come back as they went in")
    func escapes() throws {
        var summary = summary()
        summary.offerIdentifier = "say \"hi\"\\ on\nline\ttwo \u{1} café / 日本"
        let decoded = try JSONDecoder().decode(TransactionSummary.self, from: summary.controlJSON())
        #expect(decoded == summary)
    }
}
