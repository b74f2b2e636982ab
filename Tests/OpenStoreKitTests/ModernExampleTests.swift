import Foundation
@testable import StoreKitCLI
import TestProcesses
import Testing
import ArgumentParser

/// The StoreKit 2 example app (`Examples/ModernStore`) as a separate process, configured by the environment, with
/// `storekit` acting on the same data directory from outside the app.
// The app's lines are awaited without a clock: a line that never comes fails the test at the limit instead of hanging.
@Suite("The StoreKit 2 example app", .timeLimit(.minutes(5)))
struct ModernExampleTests {
    let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-modern-\(UUID().uuidString)")

    var environment: [String: String] {
        [
            "OPENSTOREKIT_CONFIG": demoConfiguration.path,
            "OPENSTOREKIT_DATA_DIR": dataDirectory.path,
            "OPENSTOREKIT_BUNDLE_ID": "com.example.demo",
        ]
    }

    func launchApp() throws -> ChildProcess {
        try ChildProcess(try ChildProcess.builtExecutable("ModernStore"), environment: environment, interactive: true)
    }

    /// The transaction identifier in a line such as `purchased … (transaction 2000000000000001, verified)`.
    func transactionID(in line: String) throws -> String {
        let start = try #require(line.range(of: "(transaction ")).upperBound
        return String(line[start...].prefix { $0.isNumber })
    }

    @Test("The example app lists prices, buys verified transactions, shows entitlements and subscription status, and loses the entitlement a refund revokes")
    func buyStatusAndRefund() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let app = try launchApp()
        for command in ["products", "buy com.example.demo.premium", "buy com.example.demo.plus.monthly", "entitlements", "status"] {
            app.send(command)
        }
        let premiumID = try transactionID(in: try await app.waitForLine(containing: "purchased com.example.demo.premium (transaction "))
        try await app.waitForLine(containing: "status com.example.demo.plus.monthly")
        app.send("refund \(premiumID)")
        let revoked = try await app.waitForLine(containing: "update com.example.demo.premium revoked")
        app.send("entitlements")
        try await app.waitForLine(containing: "entitled com.example.demo.plus.monthly", skipping: 1)
        app.send("quit")
        #expect(try await app.quit() == 0)

        let transcript = app.transcript
        #expect(transcript.contains("ModernStore: payments allowed in storefront USA"))
        #expect(transcript.contains("Premium — $9.99 (com.example.demo.premium)"))
        #expect(transcript.contains("100 Coins — $0.99 (com.example.demo.coins.100)"))
        #expect(transcript.contains("Plus Monthly — $4.99 / month (com.example.demo.plus.monthly)"))
        #expect(transcript.contains("Season Pass — $12.99 (com.example.demo.season.pass)"))
        #expect(premiumID == "2000000000000001")
        #expect(transcript.contains("purchased com.example.demo.premium (transaction \(premiumID), verified)"))
        #expect(transcript.contains("purchased com.example.demo.plus.monthly (transaction 2000000000000002, verified)"))
        #expect(transcript.contains("status com.example.demo.plus.monthly subscribed autoRenew=on"))
        #expect(transcript.contains("refund requested for \(premiumID): success"))
        #expect(revoked.contains("(transaction \(premiumID), verified)"))
        // The app's own purchases come back from `purchase()`, not as updates.
        #expect(!transcript.contains("update com.example.demo.premium purchased"))
        #expect(!transcript.contains("update com.example.demo.plus.monthly purchased"))

        let (before, after) = try #require(split(transcript, at: revoked))
        #expect(before.contains("entitled com.example.demo.premium (transaction \(premiumID))"))
        #expect(before.contains("entitled com.example.demo.plus.monthly (transaction 2000000000000002)"))
        #expect(!after.contains("entitled com.example.demo.premium"))
        #expect(after.contains("entitled com.example.demo.plus.monthly (transaction 2000000000000002)"))
    }

    @Test("Purchases and refunds made with `storekit` while the app runs reach it through Transaction.updates")
    func updatesFromOutsideTheApp() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let app = try launchApp()
        try await app.waitForLine(containing: "ready")

        let purchase = try PurchaseCommand.parse([
            "com.example.demo.theme.dark", "--config", demoConfiguration.path, "--data-dir", dataDirectory.path,
            "--bundle-id", "com.example.demo",
        ])
        try await purchase.run()
        let update = try await app.waitForLine(containing: "update com.example.demo.theme.dark purchased")
        #expect(update.contains("verified"))
        let identifier = try transactionID(in: update)
        app.send("entitlements")
        try await app.waitForLine(containing: "entitled com.example.demo.theme.dark (transaction \(identifier))")

        try await RefundCommand.parse([identifier, "--data-dir", dataDirectory.path]).run()
        try await app.waitForLine(containing: "update com.example.demo.theme.dark revoked (transaction \(identifier), verified)")
        app.send("entitlements")
        try await app.waitForLine(containing: "no entitlements")
        app.send("quit")
        #expect(try await app.quit() == 0)
    }

    @Test("The example app sells the yearly subscription billed monthly over a 12-month commitment, hears the App Store's win-back message once when it lapses, and wins the customer back with the offer renewal info names")
    func commitmentAndWinBack() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let app = try launchApp()
        app.send("products")
        try await app.waitForLine(containing: "Plus Yearly — $39.99 / year or $3.50 / month for 1 year ($42.00) (com.example.demo.plus.yearly)")
        app.send("buy com.example.demo.plus.yearly monthly")
        let bought = try await app.waitForLine(containing: "purchased com.example.demo.plus.yearly (transaction ")
        #expect(bought.contains("verified) billed monthly 1/12"))
        let identifier = try transactionID(in: bought)
        app.send("status")
        let subscribed = try await app.waitForLine(containing: "status com.example.demo.plus.yearly subscribed")
        #expect(subscribed.contains("billing=monthly 1/12"))
        #expect(!subscribed.contains("winBack="))
        app.send("winback")
        try await app.waitForLine(containing: "no win-back offer")

        // The subscription lapses, from outside the app: its renewal info now names the group's win-back offer.
        try await ExpireCommand.parse([identifier, "--config", demoConfiguration.path, "--data-dir", dataDirectory.path]).run()
        try await app.waitForLine(containing: "message winBackOffer")
        try await app.waitForLine(containing: "update com.example.demo.plus.yearly expired (transaction \(identifier), verified)")
        app.send("status")
        let lapsed = try await app.waitForLine(containing: "status com.example.demo.plus.yearly expired")
        #expect(lapsed.contains("autoRenew=off"))
        #expect(lapsed.contains("winBack=plus.monthly.winback"))

        app.send("winback")
        let back = try await app.waitForLine(containing: "purchased com.example.demo.plus.monthly (transaction ")
        #expect(back.contains("verified) with winBack offer plus.monthly.winback"))
        app.send("status")
        let resubscribed = try await app.waitForLine(containing: "status com.example.demo.plus.monthly subscribed")
        #expect(!resubscribed.contains("winBack="))
        app.send("quit")
        #expect(try await app.quit() == 0)
        // One message per lapse.
        #expect(app.transcript.components(separatedBy: "message winBackOffer").count == 2)
    }

    /// The text before and after the first occurrence of `line`.
    func split(_ transcript: String, at line: String) -> (before: Substring, after: Substring)? {
        guard let range = transcript.range(of: line) else { return nil }
        return (transcript[..<range.lowerBound], transcript[range.upperBound...])
    }
}
