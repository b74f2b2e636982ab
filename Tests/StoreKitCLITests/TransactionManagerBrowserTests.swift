import Foundation
import Testing
import TestProcesses

/// The transaction manager page of `storekit serve`, driven in headless Chromium by Selenium: purchases appear live,
/// actions taken on the page change the store, and what the store refuses shows in its own words.
///
/// The scenario is `Tests/Browser/transaction_manager.py`; it needs Debian's `chromium` and `chromium-driver` and
/// Selenium from PyPI, which `.ci/run` installs.
@Suite("The transaction manager in a real browser", .limitsChildProcesses)
struct TransactionManagerBrowserTests {
    @Test("buy, refund, redeliver, approve Ask to Buy, the refund loop, renew by the clock, and a refusal, live on the page")
    func pageDrivesTheStore() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let started = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { started.server.terminate() }

        let script = repositoryRoot.appendingPathComponent("Tests/Browser/transaction_manager.py").path
        let run = try await tool("python3", [script, "test", "--base", "http://127.0.0.1:\(started.port)/"])
        #expect(run.status != 3, "Chromium or Selenium is missing: \(run.output)")
        // On failure, the server's log too: what it answered and when.
        try #require(run.status == 0, "\(run.errorOutput)\nstorekit serve logged:\n\(started.server.errorTranscript.suffix(8_000))")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: [String]], "\(run.output)")
        #expect(result["passed"] == [
            "notification URL set from the page",
            "a purchase through the control API appears live",
            "refund on the page: state, REFUND in the log, decoded payload, delivered",
            "redeliver sends the notification again",
            "Ask to Buy: buy on the page, approve",
            "the refund loop on the page: ask, CONSUMPTION_REQUEST, prorated refund, request panel, reversal",
            "a month on the clock renews, live, with DID_RENEW",
            "a refused action shows the store's message in place",
            "offer code and Family Sharing forms",
            "filters",
            "labels and keyboard",
            "light and dark themes",
        ])
    }
}
