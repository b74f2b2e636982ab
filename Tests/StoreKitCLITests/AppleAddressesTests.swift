import Foundation
import TestProcesses
import Testing

/// `storekit serve --https-port`: the store at Apple's own addresses, reached by clients that trust its TLS root —
/// curl with `--resolve`, and Apple's Python library, unchanged, in a network namespace whose hosts file maps Apple's
/// hosts to the store.
@Suite("storekit serve at Apple's addresses over HTTPS", .limitsChildProcesses)
struct AppleAddressesTests {
    let dataDirectory = temporaryDataDirectory()
    let bundleID = "com.example.demo"
    var store: [String] { ["--data-dir", dataDirectory.path] }

    /// Starts `storekit serve` with an HTTPS listener; returns it with its HTTP and HTTPS ports.
    func serveHTTPS(_ extra: [String] = []) async throws -> (server: ChildProcess, http: Int, https: Int) {
        let server = try ChildProcess(
            try ChildProcess.builtExecutable("storekit"),
            ["serve", "--config", demoConfiguration, "--port", "0", "--https-port", "0"] + store + extra
        )
        let httpLine = try await server.waitForLine(containing: "http://127.0.0.1:")
        let httpsLine = try await server.waitForLine(containing: "https://127.0.0.1:")
        func port(_ line: String) throws -> Int {
            try #require(line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, "no port in \(line)")
        }
        return (server, try port(httpLine), try port(httpsLine))
    }

    /// Exports the TLS root as PEM into the data directory.
    func exportTLSRoot() async throws -> URL {
        let file = dataDirectory.appendingPathComponent("tls-root.pem")
        let run = try await storekit(["ca", "export", "--tls", "--out", file.path] + store)
        #expect(run.status == 0, "\(run.errorOutput)")
        return file
    }

    /// curl, trusting `caFile`, at `host` resolved to the server's HTTPS port.
    func curl(_ host: String, port: Int, path: String, caFile: URL, body: String? = nil) async throws -> StorekitRun {
        var arguments = ["-sS", "--fail-with-body", "--cacert", caFile.path, "--resolve", "\(host):\(port):127.0.0.1", "https://\(host):\(port)\(path)"]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
        return try await tool("curl", arguments)
    }

    func json(_ run: StorekitRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)\(run.errorOutput)")
    }

    @Test("curl trusting the TLS root reaches every Apple host; verifyReceipt at sandbox.itunes.apple.com is the sandbox one, at buy.itunes.apple.com production's 21007")
    func curlAtAppleHosts() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        #expect(try await storekit(["purchase", "com.example.demo.premium", "--config", demoConfiguration, "--bundle-id", bundleID] + store).status == 0)
        let receipt = dataDirectory.appendingPathComponent("receipt.der")
        #expect(try await storekit(["receipt", "--bundle-id", bundleID, "--out", receipt.path] + store).status == 0)
        let root = try await exportTLSRoot()
        let (server, httpPort, httpsPort) = try await serveHTTPS()
        defer { server.terminate() }

        for host in ["api.storekit.apple.com", "api.storekit-sandbox.apple.com", "api.storekit-sandbox.itunes.apple.com", "local-testing-base-url", "localhost"] {
            let health = try await curl(host, port: httpsPort, path: "/health", caFile: root)
            #expect(health.status == 0, "\(host): \(health.errorOutput)")
            #expect(try json(health)["status"] as? String == "ok")
        }
        let body = #"{"receipt-data": "\#(try Data(contentsOf: receipt).base64EncodedString())"}"#
        let sandbox = try json(try await curl("sandbox.itunes.apple.com", port: httpsPort, path: "/verifyReceipt", caFile: root, body: body))
        #expect(sandbox["status"] as? Int == 0)
        #expect(sandbox["environment"] as? String == "Sandbox")
        let production = try json(try await curl("buy.itunes.apple.com", port: httpsPort, path: "/verifyReceipt", caFile: root, body: body))
        #expect(production["status"] as? Int == 21007, "a sandbox receipt sent to production, as Apple answers")

        // The signing roots vouch for no TLS server: curl refuses the handshake (60, the peer's certificate).
        let signingRoots = dataDirectory.appendingPathComponent("roots.pem")
        #expect(try await storekit(["ca", "export", "--out", signingRoots.path] + store).status == 0)
        let refused = try await curl("api.storekit-sandbox.apple.com", port: httpsPort, path: "/health", caFile: signingRoots)
        #expect(refused.status == 60, "\(refused.errorOutput)")
        // A host the certificate does not name is refused too.
        let stranger = try await curl("example.com", port: httpsPort, path: "/health", caFile: root)
        #expect(stranger.status == 60, "\(stranger.errorOutput)")
        // Plain HTTP serves as before, beside HTTPS.
        #expect(try await httpGet(URL(string: "http://127.0.0.1:\(httpPort)/health")!).status == 200)
    }

    @Test("An HTTPS port in use is reported with what to do while HTTP keeps serving; with both ports taken, serve exits non-zero")
    func portInUse() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (first, firstHTTP, firstHTTPS) = try await serveHTTPS()
        defer { first.terminate() }

        let second = try ChildProcess(try ChildProcess.builtExecutable("storekit"), [
            "serve", "--config", demoConfiguration, "--port", "0", "--https-port", String(firstHTTPS),
        ] + store)
        defer { second.terminate() }
        let line = try await second.waitForLine(containing: "http://127.0.0.1:")
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        #expect(try await httpGet(URL(string: "http://127.0.0.1:\(port)/health")!).status == 200)
        try await Task.sleep(for: .milliseconds(200))
        #expect(second.errorTranscript.contains("https port \(firstHTTPS) on 127.0.0.1 is in use"), "\(second.errorTranscript)")
        #expect(second.errorTranscript.contains("--https-port"), "says which option to change: \(second.errorTranscript)")

        let third = try await storekit(["serve", "--config", demoConfiguration, "--port", String(firstHTTP), "--https-port", String(firstHTTPS)] + store)
        #expect(third.status != 0)
        #expect(third.errorOutput.contains("http port \(firstHTTP) on 127.0.0.1 is in use"), "\(third.errorOutput)")
        #expect(third.errorOutput.contains("https port \(firstHTTPS) on 127.0.0.1 is in use"), "\(third.errorOutput)")
    }

    @Test(
        "Without the privilege to bind 443 the HTTPS listener says how to get it, and HTTP keeps serving",
        .enabled(if: getuid() == 0, "needs root, to run the server as nobody")
    )
    func noPrivilegeForPort443() async throws {
        // A data directory nobody may write, in a folder of its own; the server runs as nobody in a network namespace
        // of its own, so port 443 is free whatever the machine runs.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-nobody-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        // The program and its configuration are copied there: nobody may not reach the checkout (a private temporary
        // directory, a home folder).
        let executable = folder.appendingPathComponent("storekit"), configuration = folder.appendingPathComponent("Demo.storekit")
        try FileManager.default.copyItem(at: try ChildProcess.builtExecutable("storekit"), to: executable)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: demoConfiguration), to: configuration)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: configuration.path)
        let server = try ChildProcess.tool("unshare", [
            "--net", "sh", "-c", #"ip link set lo up && exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$@""#, "sh",
            executable.path, "serve", "--config", configuration.path, "--data-dir", folder.appendingPathComponent("store").path,
            "--port", "0", "--https-port", "443",
        ])
        defer { server.terminate() }
        _ = try await server.waitForLine(containing: "http://127.0.0.1:")
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.errorTranscript.contains("https port 443 needs privileges"), "\(server.errorTranscript)")
        #expect(server.errorTranscript.contains("setcap cap_net_bind_service"), "says how to get them: \(server.errorTranscript)")
        #expect(!server.transcript.contains("https://"), "no HTTPS line: \(server.transcript)")
    }

    @Test("storekit ca env: hosts lines and variables a shell evaluates; the bundle holds the system's roots and the store's TLS root")
    func environmentCommand() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let hosts = try await storekit(["ca", "env", "--hosts", "--address", "10.0.0.5"] + store)
        #expect(hosts.status == 0)
        let names = hosts.output.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(names.first == "10.0.0.5")
        #expect(Set(names.dropFirst()).isSuperset(of: ["api.storekit.apple.com", "api.storekit-sandbox.apple.com", "buy.itunes.apple.com", "sandbox.itunes.apple.com", "local-testing-base-url"]))
        let docker = try await storekit(["ca", "env", "--hosts", "--format", "docker", "--address", "host-gateway"] + store)
        #expect(docker.output.contains("--add-host=api.storekit-sandbox.apple.com:host-gateway"))

        let dotenv = try await storekit(["ca", "env", "--format", "dotenv"] + store)
        #expect(dotenv.status == 0, "\(dotenv.errorOutput)")
        var variables: [String: String] = [:]
        for line in dotenv.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { variables[parts[0]] = parts[1] }
        }
        let root = try #require(variables["OPENSTOREKIT_TLS_ROOT"])
        let bundle = try #require(variables["SSL_CERT_FILE"])
        #expect(variables["REQUESTS_CA_BUNDLE"] == bundle)
        #expect(variables["NODE_EXTRA_CA_CERTS"] == root)
        let rootPEM = try String(contentsOfFile: root, encoding: .utf8)
        let bundlePEM = try String(contentsOfFile: bundle, encoding: .utf8)
        #expect(bundlePEM.hasSuffix(rootPEM))
        if FileManager.default.fileExists(atPath: "/etc/ssl/certs/ca-certificates.crt") {
            #expect(bundlePEM.hasPrefix(try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)))
        }
        let exported = try await storekit(["ca", "export", "--tls"] + store)
        #expect(exported.output == rootPEM, "the same root export --tls prints")

        // The shell form evaluates to the same variables.
        let shell = try await storekit(["ca", "env"] + store)
        let script = shell.output + "\nprintf '%s\\n' \"$SSL_CERT_FILE\" \"$NODE_EXTRA_CA_CERTS\"\n"
        let evaluated = try await tool("sh", ["-c", script])
        #expect(evaluated.output == "\(bundle)\n\(root)\n", "\(evaluated.errorOutput)")
    }
}

/// A network namespace the test makes, where Apple's hosts resolve to 127.0.0.1 through `/etc/netns/NAME/hosts`
/// (which `ip netns exec` puts in place of `/etc/hosts`), so code that calls Apple reaches the store instead, and
/// nothing leaves the namespace. Needs root and iproute2, as CI has; elsewhere the tests using it are skipped unless
/// `OPENSTOREKIT_TEST_NETNS=require` makes the lack a failure.
struct AppleHostsNamespace {
    let name = "osk-\(UUID().uuidString.prefix(8).lowercased())"

    static var isAvailable: Bool {
        getuid() == 0 && ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var isRequired: Bool { ProcessInfo.processInfo.environment["OPENSTOREKIT_TEST_NETNS"] == "require" }

    /// The arguments of `ip` that run a program inside the namespace.
    var exec: [String] { ["netns", "exec", name] }

    func create() async throws {
        let added = try await tool("ip", ["netns", "add", name])
        #expect(added.status == 0, "\(added.errorOutput)")
        let up = try await tool("ip", ["netns", "exec", name, "ip", "link", "set", "lo", "up"])
        #expect(up.status == 0, "\(up.errorOutput)")
        let folder = URL(fileURLWithPath: "/etc/netns/\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let hosts = "127.0.0.1 localhost\n::1 localhost\n127.0.0.1 " + [
            "api.storekit.apple.com", "api.storekit-sandbox.apple.com", "api.storekit.itunes.apple.com",
            "api.storekit-sandbox.itunes.apple.com", "local-testing-base-url", "buy.itunes.apple.com", "sandbox.itunes.apple.com",
        ].joined(separator: " ") + "\n"
        try Data(hosts.utf8).write(to: folder.appendingPathComponent("hosts"))
    }

    func remove() async {
        _ = try? await tool("ip", ["netns", "delete", name])
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }
}

@Suite("Apple's Python library, unchanged, at Apple's addresses", .limitsChildProcesses, .serialized)
struct UnchangedBackendTests {
    let dataDirectory = temporaryDataDirectory()
    let bundleID = "com.example.demo"
    let issuer = "57246542-96fe-1a63-e053-0824d011072a"
    var store: [String] { ["--data-dir", dataDirectory.path] }
    let pythonScripts = repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python")

    func buy(_ productID: String) async throws -> String {
        let run = try await storekit(["purchase", productID, "--config", demoConfiguration, "--bundle-id", bundleID, "--json"] + store)
        #expect(run.status == 0, "\(run.errorOutput)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        return try #require(json["transactionId"] as? String)
    }

    /// The variables `storekit ca env --format dotenv` prints, as a CI file would load them.
    func trustVariables() async throws -> [String: String] {
        let run = try await storekit(["ca", "env", "--format", "dotenv"] + store)
        #expect(run.status == 0, "\(run.errorOutput)")
        var variables: [String: String] = [:]
        for line in run.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { variables[parts[0]] = parts[1] }
        }
        return variables
    }

    func python(in namespace: AppleHostsNamespace, _ script: String, _ arguments: [String], environment: [String: String]) async throws -> [String: Any] {
        let run = try await ChildProcess.tool(
            "ip", namespace.exec + ["python3", pythonScripts.appendingPathComponent(script).path] + arguments,
            environment: environment
        ).finished()
        #expect(run.status != 3, "Apple's library is missing: pip install app-store-server-library==3.1.2")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)\(run.errorOutput)")
    }

    /// Makes a namespace where Apple's hosts are 127.0.0.1, starts `storekit serve --https-port 443` on the data
    /// directory inside it, and returns both with the variables `storekit ca env --format dotenv` prints.
    func serveInNamespace() async throws -> (namespace: AppleHostsNamespace, server: ChildProcess, environment: [String: String]) {
        let namespace = AppleHostsNamespace()
        try await namespace.create()
        let environment = ChildProcess.environment(try await trustVariables())
        let server = try ChildProcess.tool("ip", namespace.exec + [
            try ChildProcess.builtExecutable("storekit").path, "serve", "--config", demoConfiguration, "--port", "0", "--https-port", "443",
        ] + store)
        do {
            _ = try await server.waitForLine(containing: "https://127.0.0.1:443")
        } catch {
            Issue.record("storekit serve did not start in the namespace: \(server.errorTranscript)")
            server.terminate()
            await namespace.remove()
            throw error
        }
        return (namespace, server, environment)
    }

    @Test(
        "In a namespace where Apple's hosts are the store: Environment.SANDBOX and LOCAL_TESTING reach it with no base-URL change, every public method answers and verifies, and verifyReceipt at sandbox.itunes.apple.com answers 0",
        .enabled(if: AppleHostsNamespace.isAvailable || AppleHostsNamespace.isRequired, "needs root and iproute2 for ip netns")
    )
    func unchangedClientAtAppleHosts() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let created = try await storekit(["keys", "create", "--issuer", issuer, "--out", dataDirectory.path] + store)
        #expect(created.status == 0, "\(created.errorOutput)")
        let keyID = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let keyFile = dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8")
        let root = dataDirectory.appendingPathComponent("root.cer")
        #expect(try await storekit(["ca", "export", "--root", "jws", "--der", "--out", root.path] + store).status == 0)
        let subscriptionID = try await buy("com.example.demo.plus.monthly")
        var coins: [String] = []
        for _ in 0..<21 { coins.append(try await buy("com.example.demo.coins.100")) }
        #expect(try await storekit(["tx", "refund", coins[0]] + store).status == 0)
        let receipt = dataDirectory.appendingPathComponent("receipt.der")
        #expect(try await storekit(["receipt", "--bundle-id", bundleID, "--out", receipt.path] + store).status == 0)
        let (namespace, server, environment) = try await serveInNamespace()
        defer {
            server.terminate()
            Task { await namespace.remove() }
        }

        // Every public method of the client, as AppleLibraryEndToEndTests checks it over a changed base URL.
        let result = try await python(in: namespace, "server_api_client.py", [
            "--key-file", keyFile.path, "--key-id", keyID, "--issuer", issuer,
            "--bundle-id", bundleID, "--root", root.path, "--transaction-id", subscriptionID,
            "--subscription-product", "com.example.demo.plus.monthly",
            "--order-id", "M" + String(UInt64(coins[1])!, radix: 36, uppercase: true), "--consumable-id", coins[2],
        ], environment: environment)
        #expect((result["transactionInfo"] as? [String: Any])?["transactionId"] as? String == subscriptionID, "\(result)")
        #expect((result["statuses"] as? [String: Any])?["environment"] as? String == "Sandbox")
        #expect((result["historyv1"] as? [String: Any])?["transactionIds"] as? [String] == [subscriptionID] + coins.filter { $0 != coins[2] })
        #expect((result["historyv2"] as? [String: Any])?["transactionIds"] as? [String] == [subscriptionID] + coins)
        #expect(result["revokedTrue"] as? [String] == [coins[0]])
        #expect(result["refunds"] as? [String] == [coins[0]])
        #expect((result["extension"] as? [String: Any])?["success"] as? Bool == true)
        #expect((result["massExtension"] as? [String: Any])?["complete"] as? Bool == true)
        #expect((result["appTransaction"] as? [String: Any])?["bundleId"] as? String == bundleID)
        #expect(result["consumption"] as? String == "accepted")
        #expect(result["finished"] as? String == coins[2])
        #expect((result["unknownTransaction"] as? [String: Any])?["errorCode"] as? Int == 4_040_010)
        #expect((result["unknownKey"] as? [String: Any])?["httpStatus"] as? Int == 401)
        #expect((result["otherApp"] as? [String: Any])?["httpStatus"] as? Int == 401, "a token for another app, as Apple answers: \(String(describing: result["otherApp"]))")

        for environmentName in ["SANDBOX", "LOCAL_TESTING"] {
            let answer = try await python(in: namespace, "apple_hosts_client.py", [
                "--environment", environmentName, "--key-file", keyFile.path, "--key-id", keyID, "--issuer", issuer,
                "--bundle-id", bundleID, "--root", root.path, "--transaction-id", coins[3], "--receipt", receipt.path,
            ], environment: environment)
            let transaction = answer["transaction"] as? [String: Any]
            #expect(transaction?["transactionId"] as? String == coins[3], "\(environmentName): \(answer)")
            #expect(transaction?["environment"] as? String == "Sandbox")
            let verified = answer["verifyReceipt"] as? [String: Any]
            #expect(verified?["status"] as? Int == 0, "\(answer)")
            #expect(verified?["environment"] as? String == "Sandbox")
        }

        // Without the store's root, the same unchanged code is refused: trust came from the variable alone.
        let untrusted = try await python(in: namespace, "apple_hosts_client.py", [
            "--environment", "SANDBOX", "--key-file", keyFile.path, "--key-id", keyID, "--issuer", issuer,
            "--bundle-id", bundleID, "--root", root.path, "--transaction-id", coins[3],
        ], environment: ChildProcess.environment([:]).filter { !["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"].contains($0.key) })
        #expect(((untrusted["transaction"] as? [String: Any])?["error"] as? String)?.contains("SSL") == true, "\(untrusted)")
    }

    @Test(
        "Two backends with keys of two tenants call Apple's unchanged URL in parallel, and each sees only its own tenant's purchases",
        .enabled(if: AppleHostsNamespace.isAvailable || AppleHostsNamespace.isRequired, "needs root and iproute2 for ip netns")
    )
    func parallelTenantsByKey() async throws {
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let root = dataDirectory.appendingPathComponent("root.cer")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        #expect(try await storekit(["ca", "export", "--root", "jws", "--der", "--out", root.path] + store).status == 0)
        // Each tenant: its own key, and a purchase of its own product as its first transaction.
        let products = ["checkout-1": "com.example.demo.premium", "checkout-2": "com.example.demo.season.pass"]
        var keys: [String: String] = [:]
        for (tenant, product) in products {
            let created = try await storekit(["keys", "create", "--issuer", issuer, "--tenant", tenant, "--out", dataDirectory.path] + store)
            #expect(created.status == 0, "\(created.errorOutput)")
            keys[tenant] = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
            let bought = try await storekit(["purchase", product, "--config", demoConfiguration, "--bundle-id", bundleID, "--tenant", tenant] + store)
            #expect(bought.status == 0, "\(bought.errorOutput)")
        }
        let listed = try await storekit(["keys", "list", "--tenant", "checkout-1"] + store)
        #expect(listed.output.contains(keys["checkout-1"]!) && !listed.output.contains(keys["checkout-2"]!), "\(listed.output)")
        let (namespace, server, environment) = try await serveInNamespace()
        defer {
            server.terminate()
            Task { await namespace.remove() }
        }

        let clients = try products.keys.sorted().map { tenant in
            let keyID = keys[tenant]!
            return (tenant, try ChildProcess.tool("ip", namespace.exec + [
                "python3", pythonScripts.appendingPathComponent("apple_hosts_client.py").path, "--environment", "SANDBOX",
                "--key-file", dataDirectory.appendingPathComponent("SubscriptionKey_\(keyID).p8").path, "--key-id", keyID,
                "--issuer", issuer, "--bundle-id", bundleID, "--root", root.path, "--transaction-id", "2000000000000001",
            ], environment: environment))
        }
        for (tenant, client) in clients {
            let run = try await client.finished()
            let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.output)\(run.errorOutput)")
            #expect((answer["transaction"] as? [String: Any])?["productId"] as? String == products[tenant], "\(tenant): \(answer)")
            #expect(answer["history"] as? [String] == [products[tenant]!], "\(tenant) sees its own purchases only: \(answer)")
        }
    }
}
