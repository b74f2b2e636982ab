import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// Tests that use `SKPaymentQueue.default()`, the process's one queue: they run one at a time. Not linked into the
/// HTTP suite, which runs in the same process and would share the queue; `ServedAppTests` covers the default queue
/// over HTTP in an app process of its own.
@Suite("The process's default queue", .serialized)
struct DefaultQueueTests {
    @Test("A process session makes SKPaymentQueue.default() and requests without a queue use its store")
    func processSession() async throws {
        let session = try SKTestSession(contentsOf: demoConfiguration)
        #expect(session.paymentQueue === SKPaymentQueue.default())
        let spy = ObserverSpy(autoFinish: true)
        SKPaymentQueue.default().add(spy)
        defer { SKPaymentQueue.default().remove(spy) }
        #expect(SKPaymentQueue.canMakePayments())
        session.canMakePayments = false
        #expect(!SKPaymentQueue.canMakePayments())
        session.canMakePayments = true

        let response = try await ProductsFetcher.fetch([Demo.premium], from: nil)
        SKPaymentQueue.default().add(SKPayment(product: try #require(response.products.first)))
        try await spy.waitForTransaction(Demo.premium, .purchased)
        #expect(session.allTransactions().count == 1)

        // A new session replaces the store: the default queue forgets the old one's transactions.
        let next = try SKTestSession(contentsOf: demoConfiguration)
        #expect(SKPaymentQueue.default().transactions.isEmpty)
        #expect(next.allTransactions().isEmpty)
        SKPaymentQueue.default().restoreCompletedTransactions()
        try await spy.waitForRestoreFinished()
        #expect(!spy.updates.contains { $0.state == .restored })
    }

    @Test("The process environment needs OPENSTOREKIT_CONFIG, and says so")
    func environmentVariables() throws {
        #expect(throws: EnvironmentError.missingConfiguration) { try StoreEnvironment.fromProcessEnvironment([:]) }
        do {
            _ = try StoreEnvironment.fromProcessEnvironment(["OPENSTOREKIT_CONFIG": "/nonexistent.storekit"])
            Issue.record("A missing configuration file was accepted")
        } catch {
            #expect(error.message.contains("/nonexistent.storekit"))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-env-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try StoreEnvironment.fromProcessEnvironment([
            "OPENSTOREKIT_CONFIG": demoConfiguration.path, "OPENSTOREKIT_DATA_DIR": directory.path,
            "OPENSTOREKIT_BUNDLE_ID": "com.example.env", "OPENSTOREKIT_ACCOUNT": "alice",
        ])
        #expect(environment.bundleID == "com.example.env")
        #expect(environment.accountID == "alice")
        #expect(environment.appDirectory.path.hasPrefix(directory.path))
        #expect(StoreEnvironment.resolveBundleID([:]) == Bundle.main.bundleIdentifier ?? "com.example.app")
    }

    @Test("OPENSTOREKIT_SERVER connects the process to a server's store, or its tenant's, over HTTP; a bad URL says so")
    func serverVariable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-env-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try StoreEnvironment.fromProcessEnvironment([
            "OPENSTOREKIT_SERVER": "http://127.0.0.1:8080", "OPENSTOREKIT_TENANT": "checkout-tests", "OPENSTOREKIT_DATA_DIR": directory.path,
        ])
        let connection = try #require(environment.connection as? HTTPStoreConnection)
        #expect(connection.baseURL.absoluteString == "http://127.0.0.1:8080/t/checkout-tests/")
        let plain = try StoreEnvironment.fromProcessEnvironment(["OPENSTOREKIT_SERVER": "http://127.0.0.1:8080/", "OPENSTOREKIT_DATA_DIR": directory.path])
        #expect((plain.connection as? HTTPStoreConnection)?.baseURL.absoluteString == "http://127.0.0.1:8080/")
        do {
            _ = try StoreEnvironment.fromProcessEnvironment(["OPENSTOREKIT_SERVER": "127.0.0.1:8080", "OPENSTOREKIT_DATA_DIR": directory.path])
            Issue.record("A server address without a scheme was accepted")
        } catch {
            #expect(error == .invalidServer)
            #expect(error.message.contains("http://127.0.0.1:8080"))
        }
    }
}
