import AppStoreServer
import Foundation
import NIOCore
import NIOHTTP1

extension HTTPBenchmark {
    /// `storekit bench http --workload tenants`: what a fleet of CI jobs asks of a server, each test making a store
    /// of its own (issue 31).
    ///
    /// Makes `tenants` new tenants through the control API's `createTenant` (named `bench-<run>-<index>`, the run a
    /// random tag so the workload runs again on the same server), each with the catalog of `configurationFile` when
    /// given, then one purchase in each, and reports each phase's rate and latency percentiles. Around them it reads
    /// the server's resident memory and open descriptors from `/proc` (``ServerProcessUsage``), for the cost of one
    /// tenant, and again after `idleSeconds` with every tenant idle, when given. Last, unless `keepTenants`, it deletes
    /// every tenant it made (`deleteTenant`), reports that phase's rate too, and what the server holds afterwards
    /// against what it held before.
    func runTenants() async throws {
        let (host, port) = try hostAndPort()
        let count = tenants ?? 1_000
        let configuration = try configurationFile.map(Self.configurationJSON)
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let name: @Sendable (Int) -> String = { "bench-\(run)-\($0)" }
        let pid = serverPID ?? (Self.isLoopback(host) ? ServerProcessUsage.listener(onPort: port) : nil)
        let before = pid.flatMap(ServerProcessUsage.init(pid:))

        print("""
            http tenants against \(server.absoluteString): \(count) tenant\(count == 1 ? "" : "s") \(name(0))…\(name(count - 1)) \
            selling \(configurationFile ?? "the server's catalog"), \(connections) connections, as fast as answered
            """)

        // {"name": "…", "configuration": <the file's JSON>}: the names need no escaping (letters, digits, '-'), and
        // splicing the file's bytes in spares the load generator a JSON encoding of the catalog per request.
        let create: @Sendable (Int) -> LoadRequest = { [self] index in
            var body = Data(#"{"name":""#.utf8) + Data(name(index).utf8) + Data("\"".utf8)
            if let configuration { body += Data(#","configuration":"#.utf8) + configuration }
            body += Data("}".utf8)
            return request(ControlOperation.createTenant, body: body)
        }
        let (created, creation) = try await runToCompletion(host: host, port: port, count: count, request: create)
        report(created, elapsed: creation, label: "create (POST \(ControlOperation.createTenant.path()))", unit: "tenants")
        let afterCreation = await Self.settledUsage(pid)

        let purchases = (0..<count).map { index in
            request(ControlOperation.purchase, tenant: name(index), json: ["productId": productID, "bundleId": bundleID, "account": "bench-0"])
        }
        let (purchased, purchasing) = try await runToCompletion(host: host, port: port, count: count) { purchases[$0] }
        report(purchased, elapsed: purchasing, label: "first purchase in each tenant (POST /t/{name}\(ControlOperation.purchase.path()))")
        let afterPurchases = await Self.settledUsage(pid)
        var idle: ServerProcessUsage?
        if let idleSeconds, pid != nil {
            try await Task.sleep(for: .milliseconds(Int64(idleSeconds * 1_000)))
            idle = await Self.settledUsage(pid)
        }

        var afterDeletion: ServerProcessUsage?
        if !keepTenants {
            let deletions = (0..<count).map { index in
                request(String(ControlOperation.deleteTenant.path(["name": name(index)]).dropFirst()), method: .DELETE, body: nil)
            }
            let (deleted, deleting) = try await runToCompletion(host: host, port: port, count: count) { deletions[$0] }
            report(deleted, elapsed: deleting, label: "delete (DELETE \(ControlOperation.deleteTenant.pathTemplate))", unit: "tenants")
            // A server gives the memory deleted tenants freed back to the system a second after deletions pause.
            if pid != nil { try await Task.sleep(for: .seconds(2)) }
            afterDeletion = await Self.settledUsage(pid)
        }

        if let pid, let before, let afterCreation, let afterPurchases {
            print("  server process \(pid):")
            print("    before:          \(before.summary)")
            print("    after creating:  \(afterCreation.summary)")
            print("    after purchases: \(afterPurchases.summary)")
            if let idleSeconds, let idle {
                print("    idle \(String(format: "%g", idleSeconds)) s later: \(idle.summary)")
            }
            if let afterDeletion {
                let kept = Double(afterDeletion.residentKilobytes - before.residentKilobytes) / Double(max(1, afterPurchases.residentKilobytes - before.residentKilobytes))
                let keptOnDisk = Double(afterDeletion.databaseKilobytes - before.databaseKilobytes)
                    / Double(max(1, afterPurchases.databaseKilobytes - before.databaseKilobytes))
                // Rounded first, so that a little less than at the start shows as 0%, not -0%.
                func percent(_ share: Double) -> String { String(format: "%.0f", (share * 100).rounded() + 0) }
                print("""
                        after deleting:  \(afterDeletion.summary) (\(percent(kept))% of the tenants' memory \
                    and \(percent(keptOnDisk))% of their databases' growth still held)
                    """)
            }
            // The cost of a tenant as it stands last: idle, when the run waited.
            let last = idle ?? afterPurchases
            let resident = Double(last.residentKilobytes - before.residentKilobytes) / Double(count)
            let descriptors = Double(last.openDescriptors - before.openDescriptors) / Double(count)
            let threads = Double(last.threads - before.threads) / Double(count)
            print("""
                  per tenant\(idle == nil ? "" : " idle"): \(String(format: "%.1f", resident)) KB resident, \
                \(String(format: "%.2f", descriptors)) open descriptors, \(String(format: "%.3f", threads)) threads
                """)
        } else {
            print("""
                  server memory: not measured: \(pid.map { "/proc shows no process \($0) to this user" } ?? "no process of this user listens on port \(port) here"); \
                give --server-pid of a server on this machine
                """)
        }
    }

    /// The JSON of a `.storekit` file, checked to be a JSON object.
    private static func configurationJSON(_ path: String) throws -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FormatsCLI.failure("Cannot read the configuration \(path): \(error.localizedDescription)")
        }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw FormatsCLI.failure("\(path) is not a .storekit file: its content is not a JSON object.")
        }
        return data
    }

    /// What the server holds once the load's connections are gone: the server closes its side of them a moment after
    /// the load generator does, and each open one is a descriptor that is not the tenants'.
    private static func settledUsage(_ pid: Int32?) async -> ServerProcessUsage? {
        guard let pid else { return nil }
        var usage = ServerProcessUsage(pid: pid)
        for _ in 0..<20 {
            try? await Task.sleep(for: .milliseconds(50))
            let next = ServerProcessUsage(pid: pid)
            if next?.openDescriptors == usage?.openDescriptors { return next }
            usage = next
        }
        return usage
    }

    /// Whether `host` is this machine, where `/proc` shows the server.
    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
