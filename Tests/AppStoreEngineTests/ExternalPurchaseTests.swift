import AppStoreEngine
import AppStoreFormats
import Foundation
import TestProcesses
import Testing

/// External purchase tokens: issued as Apple's External Purchase APIs issue them, `EXTERNAL_PURCHASE_TOKEN`
/// notifications on the store's clock (CREATED, ACTIVE_TOKEN_REMINDER, UNREPORTED), reports checked against the tokens,
/// and the notifications verified by Apple's own `SignedDataVerifier`.
@Suite("External purchases")
struct ExternalPurchaseTests {
    static let hour: TimeInterval = 3_600
    static let day: TimeInterval = 86_400

    func tokenNotifications(_ store: StoreEngine) async throws -> [NotificationRecord] {
        try await store.notifications().filter { $0.type == .externalPurchaseToken }
    }

    func report(
        _ id: String?, status: String? = "NO_LINE_ITEM", request: String = UUID().uuidString, items: [ExternalPurchaseReportSubmission.LineItem]? = nil
    ) -> ExternalPurchaseReportSubmission {
        ExternalPurchaseReportSubmission(requestIdentifier: request, externalPurchaseId: id, status: status, lineItems: items, body: "{}")
    }

    @Test("A sandbox SERVICES custom link token is active for an hour, the same one is answered meanwhile, CREATED is sent at once and UNREPORTED at its expiry")
    func sandboxServicesToken() async throws {
        let (store, clock) = try makeStore()
        let token = try #require(try await store.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app))
        #expect(token.id.hasPrefix("SANDBOX_") && UUID(uuidString: String(token.id.dropFirst("SANDBOX_".count))) != nil)
        #expect(token.tokenType == .services && token.creationDate == testStart && token.expirationDate == testStart.addingTimeInterval(Self.hour))
        #expect(token.appAppleID == StoreDefaults.appAppleID(bundleID: app))
        #expect(try await store.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app) == token, "the active token")
        #expect(try await tokenNotifications(store).map(\.summary) == ["EXTERNAL_PURCHASE_TOKEN/CREATED"])

        // The value the app receives is the token's JSON, Base64URL-encoded, dates in milliseconds.
        let value = try token.token.encodedValue()
        let bytes = try #require(Data(base64Encoded: Self.padded(value)))
        let json = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        #expect(json["externalPurchaseId"] as? String == token.id && json["bundleId"] as? String == app && json["tokenType"] as? String == "SERVICES")
        #expect((json["tokenCreationDate"] as? NSNumber)?.int64Value == Int64(testStart.timeIntervalSince1970 * 1000))
        #expect((json["tokenExpirationDate"] as? NSNumber)?.int64Value == Int64(testStart.addingTimeInterval(Self.hour).timeIntervalSince1970 * 1000))
        #expect(try ExternalPurchaseToken(encodedValue: value) == token.token)

        try await clock.advance(by: Self.hour - 1)
        #expect(try await tokenNotifications(store).count == 1, "nothing before the expiry")
        try await clock.advance(by: 1)
        let notifications = try await tokenNotifications(store)
        #expect(notifications.map(\.summary) == ["EXTERNAL_PURCHASE_TOKEN/CREATED", "EXTERNAL_PURCHASE_TOKEN/UNREPORTED"])
        #expect(notifications.last?.date == testStart.addingTimeInterval(Self.hour) && notifications.last?.externalPurchaseToken?.id == token.id)

        // Expired, a SERVICES token is replaced by a new one.
        let next = try #require(try await store.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app))
        #expect(next.id != token.id && next.creationDate == testStart.addingTimeInterval(Self.hour))
        try await clock.advance(by: 30 * Self.day)
        #expect(try await tokenNotifications(store).count == 4, "CREATED and UNREPORTED for the second token, nothing more")
    }

    @Test("An ACQUISITION token has one active period per customer and app: after it expires the store answers none")
    func acquisitionOnce() async throws {
        let (store, clock) = try makeStore()
        let token = try #require(try await store.externalPurchaseCustomLinkToken(type: .acquisition, accountID: "ana", bundleID: app))
        #expect(token.tokenType == .acquisition)
        try await clock.advance(by: Self.hour)
        #expect(try await store.externalPurchaseCustomLinkToken(type: .acquisition, accountID: "ana", bundleID: app) == nil)
        #expect(try await store.externalPurchaseCustomLinkToken(type: .acquisition, accountID: "bo", bundleID: app) != nil, "another account")
    }

    @Test("A reported token owes no UNREPORTED; a notice-sheet token without report gets UNREPORTED 10 days after creation")
    func reportingCancelsUnreported() async throws {
        let (store, clock) = try makeStore()
        let reported = try #require(try await store.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app))
        let accepted = try await store.submitExternalPurchaseReport(report(reported.id), bundleID: app).get()
        #expect(accepted.status == "NO_LINE_ITEM" && accepted.externalPurchaseId == reported.id)
        #expect(try await store.externalPurchaseReport(requestIdentifier: accepted.requestIdentifier, bundleID: app) == accepted)
        #expect(try await store.externalPurchaseReport(requestIdentifier: accepted.requestIdentifier, bundleID: "other.app") == nil)

        let notice = try await store.issueExternalPurchaseToken(accountID: "ana", bundleID: app)
        #expect(notice.tokenType == nil && notice.expirationDate == nil && notice.id.hasPrefix("SANDBOX_"))
        try await clock.advance(by: 10 * Self.day - 1)
        #expect(try await tokenNotifications(store).map(\.summary) == ["EXTERNAL_PURCHASE_TOKEN/CREATED"], "the reported token: no UNREPORTED")
        try await clock.advance(by: 1)
        let unreported = try #require(try await tokenNotifications(store).last)
        #expect(unreported.summary == "EXTERNAL_PURCHASE_TOKEN/UNREPORTED" && unreported.externalPurchaseToken?.id == notice.id)
        #expect(unreported.date == testStart.addingTimeInterval(10 * Self.day))
    }

    @Test("In Production a custom link token lives a year: ACTIVE_TOKEN_REMINDER monthly while active, UNREPORTED at expiry; a DUPLICATE_TOKEN report stops the reminders")
    func productionReminders() async throws {
        let (store, clock) = try makeStore(settings: StoreSettings(environment: "Production"))
        let token = try #require(try await store.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app))
        #expect(UUID(uuidString: token.id) != nil, "no SANDBOX_ prefix in Production")
        #expect(token.expirationDate == testStart.addingTimeInterval(365 * Self.day))
        let duplicate = try #require(try await store.externalPurchaseCustomLinkToken(type: .acquisition, accountID: "ana", bundleID: app))

        try await clock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 2, to: testStart)!)
        #expect(try await store.submitExternalPurchaseReport(report(duplicate.id, status: "DUPLICATE_TOKEN"), bundleID: app).get().status == "DUPLICATE_TOKEN")
        try await clock.advance(to: testStart.addingTimeInterval(366 * Self.day))

        let ofToken = try await tokenNotifications(store).filter { $0.externalPurchaseToken?.id == token.id }
        #expect(ofToken.map { $0.subtype } == [.created] + Array(repeating: .activeTokenReminder, count: 11) + [.unreported])
        let reminders = ofToken.filter { $0.subtype == .activeTokenReminder }.map(\.date)
        #expect(reminders.first == Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart))
        // The twelfth month ends on the expiry (365 days from 2026-01-15): the last reminder is the eleventh.
        #expect(reminders.last == Calendar.gregorianUTC.date(byAdding: .month, value: 11, to: testStart), "the last one before the expiry")
        let ofDuplicate = try await tokenNotifications(store).filter { $0.externalPurchaseToken?.id == duplicate.id }
        #expect(ofDuplicate.map { $0.subtype } == [.created, .activeTokenReminder, .activeTokenReminder], "reminders stop with the duplicate report")
    }

    @Test("Reports are checked against the tokens with Apple's error codes: unknown or another app's token, status and line items, dates outside the token's period, a reused request identifier")
    func reportValidation() async throws {
        let (store, _) = try makeStore()
        let token = try #require(try await store.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app))
        let notice = try await store.issueExternalPurchaseToken(accountID: "ana", bundleID: app)
        func codes(_ submission: ExternalPurchaseReportSubmission, bundleID: String = app) async throws -> [Int] {
            switch try await store.submitExternalPurchaseReport(submission, bundleID: bundleID) {
            case .success: return []
            case .failure(let rejection): return rejection.problems.map(\.errorCode)
            }
        }
        let inside = testStart.addingTimeInterval(60), outside = testStart.addingTimeInterval(2 * Self.hour)
        #expect(try await codes(report("SANDBOX_unknown")) == [3])
        #expect(try await codes(report(token.id), bundleID: "other.app") == [3], "another app's token is not found")
        #expect(try await codes(report(nil)) == [4])
        #expect(try await codes(report(token.id, status: nil)) == [4])
        #expect(try await codes(report(token.id, status: "LINE_ITEM")) == [9])
        #expect(try await codes(report(token.id, items: [.init(lineItemId: "a", creationDate: inside)])) == [10])
        #expect(try await codes(report(notice.id, status: "DUPLICATE_TOKEN")) == [37], "only custom link tokens can be duplicates")
        #expect(try await codes(report(token.id, status: "LINE_ITEM", items: [.init(lineItemId: "a", creationDate: outside)])) == [36])
        #expect(try await codes(report(token.id, status: "LINE_ITEM", items: [.init(lineItemId: nil, creationDate: inside)])) == [4])
        #expect(try await codes(report(token.id, status: "LINE_ITEM", items: [
            .init(lineItemId: "a", creationDate: inside), .init(lineItemId: "a", creationDate: inside),
        ])) == [1])
        let request = UUID().uuidString
        #expect(try await codes(report(token.id, status: "LINE_ITEM", request: request, items: [.init(lineItemId: "a", creationDate: inside)])) == [])
        #expect(try await codes(report(token.id, request: request)) == [1], "a request identifier already accepted")
        #expect(try await codes(report(token.id)) == [8], "NO_LINE_ITEM after LINE_ITEM")
        #expect(try await store.externalPurchaseToken(id: token.id)?.reportStatus == "LINE_ITEM")
        #expect(try await codes(report(notice.id, status: "UNRECOGNIZED_TOKEN")) == [])
    }

    @Test("Apple's SignedDataVerifier verifies CREATED, UNREPORTED and ACTIVE_TOKEN_REMINDER: the environment from the externalPurchaseId, the token's fields intact")
    func appleLibraryVerifiesTokenNotifications() async throws {
        let (sandbox, sandboxClock) = try makeStore()
        let token = try #require(try await sandbox.externalPurchaseCustomLinkToken(type: .services, accountID: "ana", bundleID: app))
        try await sandboxClock.advance(by: Self.hour)
        for notification in try await tokenNotifications(sandbox) {
            let payload = try await appleVerify("notification", try await sandbox.signedNotification(notification), store: sandbox, environment: "SANDBOX")
            #expect(payload["rawNotificationType"] as? String == "EXTERNAL_PURCHASE_TOKEN")
            #expect(payload["rawSubtype"] as? String == notification.subtype?.rawValue)
            #expect(payload["data"] == nil || payload["data"] is NSNull)
            let decoded = try #require(payload["externalPurchaseToken"] as? [String: Any])
            #expect(decoded["externalPurchaseId"] as? String == token.id && decoded["bundleId"] as? String == app)
            #expect((decoded["tokenCreationDate"] as? NSNumber)?.int64Value == Int64(testStart.timeIntervalSince1970 * 1000))
            #expect((decoded["appAppleId"] as? NSNumber)?.int64Value == token.appAppleID)
        }

        let (production, productionClock) = try makeStore(settings: StoreSettings(environment: "Production"))
        let live = try #require(try await production.externalPurchaseCustomLinkToken(type: .acquisition, accountID: "ana", bundleID: app))
        try await productionClock.advance(to: Calendar.gregorianUTC.date(byAdding: .month, value: 1, to: testStart)!)
        let reminder = try #require(try await tokenNotifications(production).last)
        #expect(reminder.subtype == .activeTokenReminder)
        let payload = try await appleVerify(
            "notification", try await production.signedNotification(reminder), store: production, environment: "PRODUCTION", appAppleID: live.appAppleID
        )
        #expect(payload["rawSubtype"] as? String == "ACTIVE_TOKEN_REMINDER")
        #expect((payload["externalPurchaseToken"] as? [String: Any])?["externalPurchaseId"] as? String == live.id)
        // A sandbox verifier refuses it: the identifier without SANDBOX_ says Production.
        let refused = try await appleVerification("notification", try await production.signedNotification(reminder), store: production, environment: "SANDBOX")
        #expect(refused["status"] as? String == "INVALID_ENVIRONMENT", "\(refused)")
    }


    static func padded(_ base64URL: String) -> String {
        let standard = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
    }
}
