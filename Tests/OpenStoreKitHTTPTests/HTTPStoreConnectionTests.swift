import AppStoreEngine
import Foundation
import OpenStoreKit
import Testing

@Suite("The HTTP store connection")
struct HTTPStoreConnectionTests {
    @Test(
        "Store calls cancelled while their requests fail end, and leave the process's URL sessions working",
        .timeLimit(.minutes(1))
    )
    func cancellingCallsNeverHangs() async throws {
        // Nothing listens on port 9 of loopback: every request fails at once on the URL sessions' work queue, racing
        // with the cancellation of the task that waits for it (what a payment queue going away does to its long poll).
        let connection = HTTPStoreConnection(baseURL: try #require(URL(string: "http://127.0.0.1:9/")))
        for _ in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask { _ = try? await connection.settings() }
                }
                await Task.yield()
                group.cancelAll()
            }
        }
        // The sessions' shared work queue still serves requests.
        await #expect(throws: StoreError.self) { try await connection.settings() }
    }
}
