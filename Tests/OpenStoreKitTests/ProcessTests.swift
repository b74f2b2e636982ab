import AppStoreEngine
import Foundation
@testable import StoreKitCLI
import TestProcesses
import Testing
import ArgumentParser

/// The example app and `storekit` as separate processes sharing a data directory, as a developer runs them.
@Suite("App processes configured by the environment")
struct ProcessTests {
    let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-app-\(UUID().uuidString)")

    var environment: [String: String] {
        [
            "OPENSTOREKIT_CONFIG": demoConfiguration.path,
            "OPENSTOREKIT_DATA_DIR": dataDirectory.path,
            "OPENSTOREKIT_BUNDLE_ID": "com.example.demo",
        ]
    }

    func launchApp(_ arguments: [String] = []) throws -> ChildProcess {
        try ChildProcess(try ChildProcess.builtExecutable("InAppPurchases"), arguments, environment: environment, interactive: true)
    }

    @Test("The example app lists localized prices, buys, restores and shows purchases against Examples/Demo.storekit")
    func exampleApp() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let app = try launchApp()
        for command in ["products", "buy com.example.demo.premium", "buy 2 3", "restore", "purchases", "receipt", "quit"] {
            app.send(command)
        }
        #expect(try await app.quit() == 0)
        let transcript = app.transcript
        #expect(transcript.contains("payments allowed in storefront USA"))
        #expect(transcript.contains("Premium — $9.99 (com.example.demo.premium)"))
        #expect(transcript.contains("100 Coins — $0.99 (com.example.demo.coins.100)"))
        #expect(transcript.contains("Season Pass — $12.99 (com.example.demo.season.pass)"))
        #expect(transcript.contains("not for sale: com.example.demo.retired"))
        #expect(transcript.contains("purchased com.example.demo.premium ×1 (transaction 2000000000000001)"))
        #expect(transcript.contains("finished com.example.demo.premium (transaction 2000000000000001)"))
        #expect(transcript.contains("purchased com.example.demo.coins.100 ×3 (transaction 2000000000000002)"))
        #expect(transcript.contains("restored com.example.demo.premium (transaction 2000000000000003, original 2000000000000001)"))
        #expect(transcript.contains("restore finished"))
        #expect(transcript.contains("restore com.example.demo.premium transaction 2000000000000003 of 2000000000000001"))
        #expect(transcript.contains("receipt: "))
    }

    @Test("Killing the app with SIGKILL between purchase and finish loses nothing: the next launch gets the transaction")
    func killBetweenPurchaseAndFinish() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let first = try launchApp(["--manual-finish"])
        first.send("buy com.example.demo.premium")
        let unfinished = try await first.waitForLine(containing: "unfinished com.example.demo.premium (transaction ")
        try await first.kill()

        // The store in the data directory has the purchase, as `storekit tx list` shows.
        let records = try await StoreLocationOptions.parse(["--data-dir", dataDirectory.path]).openStore().transactions()
        #expect(records.map(\.productID) == [Demo.premium])
        let identifier = try #require(records.first).id
        #expect(unfinished.contains("transaction \(identifier)"))

        let second = try launchApp(["--manual-finish"])
        try await second.waitForLine(containing: "unfinished com.example.demo.premium (transaction \(identifier))")
        second.send("finish")
        try await second.waitForLine(containing: "finished com.example.demo.premium (transaction \(identifier))")
        second.send("quit")
        #expect(try await second.quit() == 0)

        let third = try launchApp(["--manual-finish"])
        third.send("restore")
        third.send("queue")
        try await third.waitForLine(containing: "restored com.example.demo.premium")
        third.send("quit")
        #expect(try await third.quit() == 0)
        #expect(!third.transcript.contains("unfinished com.example.demo.premium (transaction \(identifier))"))
    }

    @Test("A promoted purchase started with `storekit promote` while the app runs reaches its observer, which buys it")
    func promoteWhileRunning() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let app = try launchApp()
        try await app.waitForLine(containing: "ready")
        let promote = try PromoteCommand.parse([
            "itms-services://?action=purchaseIntent&bundleId=com.example.demo&productIdentifier=com.example.demo.theme.dark",
            "--config", demoConfiguration.path, "--data-dir", dataDirectory.path,
        ])
        try await promote.run()
        try await app.waitForLine(containing: "promoted purchase of Dark Theme from the App Store: continuing")
        try await app.waitForLine(containing: "purchased com.example.demo.theme.dark ×1")
        app.send("quit")
        #expect(try await app.quit() == 0)
    }

    @Test("`storekit promote` takes a product identifier or Apple's URL, and refuses a URL for another app")
    func promoteArguments() throws {
        let plain = try PromoteCommand.parse([Demo.premium, "--bundle-id", "com.example.demo"])
        #expect(try plain.resolveTarget(environment: [:]) == (Demo.premium, "com.example.demo"))
        let url = "itms-services://?action=purchaseIntent&bundleId=com.example.demo&productIdentifier=\(Demo.premium)"
        #expect(try PromoteCommand.parse([url]).resolveTarget(environment: [:]) == (Demo.premium, "com.example.demo"))
        #expect(throws: (any Error).self) { try PromoteCommand.parse([url, "--bundle-id", "com.other"]).resolveTarget(environment: [:]) }
        #expect(throws: (any Error).self) { try PromoteCommand.parse(["itms-services://?action=nothing"]).resolveTarget(environment: [:]) }
    }
}

extension ChildProcess {
    /// Closes the app's input, as the end of a terminal session does, and returns its exit status.
    func quit() async throws -> Int32 {
        try closeInput()
        return try await finished().status
    }
}
