import AppStorePostgres
import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server killed with SIGKILL in the middle of a stream of purchases and renewals, then started again on the same
/// storage: every acknowledged purchase is there once, every charge has the notification written with it, and the
/// restarted server picks up the due work — renewals and the notifications the dead one held.
@Suite("Crash recovery", .limitsChildProcesses)
struct CrashRecoveryTests {
    static let bundleID = "com.example.demo"

    enum StorageKind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
        /// SQLite always; PostgreSQL when `OPENSTOREKIT_TEST_POSTGRES_URL` names a server (`.ci/run` starts one).
        static var available: [StorageKind] { PostgresTestDatabase.isConfigured ? [.sqlite, .postgres] : [.sqlite] }
    }

    /// A running `storekit serve`.
    struct Server {
        let process: ChildProcess
        let baseURL: String

        func post(_ path: String, _ body: String = "{}") async throws -> (status: Int, json: [String: Any]?) {
            var request = URLRequest(url: try #require(URL(string: baseURL + path)))
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        func list(_ path: String) async throws -> [[String: Any]] {
            let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: baseURL + path)))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "\(String(decoding: data, as: UTF8.self))")
        }
    }

    func start(_ arguments: [String]) async throws -> Server {
        let process = try ChildProcess(try ChildProcess.builtExecutable("storekit"), arguments)
        let line = try await process.waitForLine(containing: "http://127.0.0.1:")
        return Server(process: process, baseURL: try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }))
    }

    @Test("kill -9 during purchases and renewals: acknowledged purchases kept once, nothing half-written, due work picked up after a restart", arguments: StorageKind.available)
    func killDuringPurchasesAndRenewals(kind: StorageKind) async throws {
        let dataDirectory = temporaryDataDirectory()
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        var arguments = ["serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0", "--notification-timeout", "5"]
        var postgres: PostgresStorage.Configuration?
        if kind == .postgres {
            let configuration = try PostgresTestDatabase.freshConfiguration()
            postgres = configuration
            arguments += ["--database", PostgresTestDatabase.url(of: configuration)]
        }
        defer { if let postgres { try? PostgresTestDatabase.dropSchema(of: postgres) } }

        let root = dataDirectory.appendingPathComponent("root.cer")
        #expect(try await storekit(["ca", "export", "--data-dir", dataDirectory.path, "--root", "jws", "--der", "--out", root.path]).status == 0)
        let log = dataDirectory.appendingPathComponent("received.jsonl")
        let receiver = try ChildProcess.tool("python3", [
            repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/notification_receiver.py").path,
            "--root", root.path, "--bundle-id", Self.bundleID, "--log", log.path, "--down-flag", dataDirectory.appendingPathComponent("down").path,
        ])
        defer { receiver.terminate() }
        let receiverPort = try #require(try await receiver.waitForLine(containing: "listening on ").split(separator: " ").last)
        arguments += ["--notification-url", "\(Self.bundleID)=http://127.0.0.1:\(receiverPort)/apple"]

        let doomed = try await start(arguments)
        defer { doomed.process.terminate() }

        /// The purchases the server answered 200 to, as a client would have recorded them.
        actor Acknowledged {
            var ids: [String] = []
            func add(_ id: String) -> Int {
                ids.append(id)
                return ids.count
            }
        }
        let acknowledged = Acknowledged()
        let killAfter = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<3 {
                group.addTask {
                    for index in 0... {
                        let (product, account) = switch index % 3 {
                        case 0: ("plus.weekly", "subscriber-\(worker)-\(index)")
                        case 1: ("coins.100", "shared")
                        default: ("premium", "shared-\(worker)")
                        }
                        let body = #"{"productId": "com.example.demo.\#(product)", "account": "\#(account)", "bundleId": "\#(Self.bundleID)"}"#
                        // The server dies under the stream: a request it never answered ends the worker.
                        guard let (status, json) = try? await doomed.post("/control/purchases", body) else { return }
                        #expect(status == 200, "\(json ?? [:])")
                        guard let id = json?["transactionId"] as? String else { continue }
                        if await acknowledged.add(id) == killAfter { try await doomed.process.kill() }
                    }
                }
            }
            group.addTask {
                // Renewals all along: a week at a time, so every weekly subscription renews while purchases go on.
                while (try? await doomed.post("/control/clock/advance", #"{"by": "1w"}"#)) != nil {}
            }
            try await group.waitForAll()
        }
        let acknowledgedIDs = await acknowledged.ids
        #expect(acknowledgedIDs.count >= killAfter)

        let restarted = try await start(arguments)
        defer { restarted.process.terminate() }
        let transactions = try await restarted.list("/control/transactions")
        let ids = transactions.compactMap { $0["transactionId"] as? String }
        #expect(Set(ids).count == ids.count, "no transaction identifier twice")
        #expect(Set(ids).isSuperset(of: acknowledgedIDs), "every acknowledged purchase survived")
        #expect(transactions.contains { $0["origin"] as? String == "renewal" }, "subscriptions renewed while purchases went on")

        // Nothing half-written: every charge has the notification written in its transaction, and nothing else has one.
        let charged = Set(transactions.filter { $0["origin"] as? String != "repurchase" }.compactMap { $0["transactionId"] as? String })
        let outbox = try await restarted.list("/control/notifications")
        #expect(Set(outbox.compactMap { $0["transactionId"] as? String }) == charged)
        #expect(outbox.count == charged.count, "one notification per charge")
        // Each subscription's periods follow each other a week apart, none twice.
        let periods = Dictionary(grouping: transactions.filter { $0["productId"] as? String == "com.example.demo.plus.weekly" }) {
            $0["originalTransactionId"] as? String ?? ""
        }
        for (original, renewals) in periods {
            let dates = renewals.compactMap { ($0["purchaseDate"] as? String).flatMap { try? Date($0, strategy: .iso8601) } }.sorted()
            #expect(zip(dates, dates.dropFirst()).allSatisfy { abs($1.timeIntervalSince($0) - 7 * 86_400) < 1 }, "\(original): \(dates)")
        }

        // The restarted server does the due work: a week more renews every subscription still running once more…
        let before = transactions.filter { $0["productId"] as? String == "com.example.demo.plus.weekly" }.count
        let subscriptions = Set(periods.keys).count
        #expect(try await restarted.post("/control/clock/advance", #"{"by": "1w"}"#).status == 200)
        let after = try await restarted.list("/control/transactions").filter { $0["productId"] as? String == "com.example.demo.plus.weekly" }.count
        #expect(after == before + subscriptions)

        // …and every notification reaches the receiver, those the dead server held once its claims lapsed included.
        let expected = Set(try await restarted.list("/control/notifications").compactMap { $0["notificationUUID"] as? String })
        var received = Set<String>()
        let deadline = Date().addingTimeInterval(90)
        while !received.isSuperset(of: expected), Date() < deadline {
            try await Task.sleep(for: .milliseconds(250))
            received = Set(((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["notificationUUID"] as? String
            })
        }
        let missing = expected.subtracting(received)
        let undelivered = missing.isEmpty ? [] : try await restarted.list("/control/notifications").filter {
            missing.contains($0["notificationUUID"] as? String ?? "")
        }
        #expect(missing.isEmpty, "\(missing.count) of \(expected.count) notifications never arrived: \(undelivered)")
    }
}
