import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `storekit serve` as operations run it: configured by environment variables alone, flags winning over them,
/// precise errors for a variable's bad value, and Prometheus metrics at `/metrics`.
@Suite("storekit serve operations", .limitsChildProcesses)
struct ServeOperationsTests {
    /// Every environment variable `storekit serve` reads, as its `--help` names them.
    static let variables = [
        "OPENSTOREKIT_CONFIG", "OPENSTOREKIT_DATA_DIR", "OPENSTOREKIT_TENANT", "OPENSTOREKIT_DATABASE_URL", "OPENSTOREKIT_HOST",
        "OPENSTOREKIT_PORT", "OPENSTOREKIT_LOG_LEVEL", "OPENSTOREKIT_NOTIFICATION_URL", "OPENSTOREKIT_NOTIFICATION_TIMEOUT",
        "OPENSTOREKIT_SHARED_SECRET",
    ]

    /// Starts `storekit serve` with `arguments` and `environment`; returns it once it listens, with its base URL.
    func serve(_ arguments: [String], environment: [String: String]) async throws -> (server: ChildProcess, address: String) {
        let server = try ChildProcess(try ChildProcess.builtExecutable("storekit"), ["serve"] + arguments, environment: environment)
        let line = try await server.waitForLine(containing: "http://")
        let address = try #require(line.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }, "no address in \(line)")
        return (server, address)
    }

    func post(_ url: URL, _ body: String) async throws -> Int {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    @Test("serve --help names every option's environment variable")
    func helpNamesEveryVariable() async throws {
        let help = try await storekit(["serve", "--help"])
        #expect(help.status == 0)
        // Help wraps long lines: compare with the whitespace collapsed.
        let text = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for variable in Self.variables {
            #expect(text.contains("(env: \(variable))"), "\(variable) is not in:\n\(help.output)")
        }
        #expect(text.contains("/metrics"))
    }

    @Test("serve configured by environment variables alone serves its tenant and counts a purchase at /metrics")
    func environmentOnlyAndMetrics() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, address) = try await serve([], environment: [
            "OPENSTOREKIT_CONFIG": demoConfiguration, "OPENSTOREKIT_DATA_DIR": dataDirectory.path, "OPENSTOREKIT_PORT": "0",
            "OPENSTOREKIT_TENANT": "ops", "OPENSTOREKIT_LOG_LEVEL": "warning",
            "OPENSTOREKIT_SHARED_SECRET": "com.example.demo=0123456789abcdef, com.example.other=fedcba9876543210",
        ])
        defer { server.terminate() }
        #expect(address.hasPrefix("http://127.0.0.1:"))
        let base = try #require(URL(string: address))
        #expect(try await httpGet(base.appendingPathComponent("health")).status == 200)
        #expect(try await post(base.appendingPathComponent("control/purchases"), #"{"productId": "com.example.demo.premium", "bundleId": "com.example.demo"}"#) == 200)

        let expected = [
            #"openstorekit_purchases_total{tenant="ops",result="purchased"} 1"#,
            #"openstorekit_http_requests_total{group="health",method="GET",status="200"} 1"#,
            #"openstorekit_http_requests_total{group="control",method="POST",status="200"} 1"#,
        ]
        var text = ""
        // The purchase is counted as the server reads its store's events: scrape until it shows, a few times at most.
        for _ in 0..<50 {
            let (status, body) = try await httpGet(base.appendingPathComponent("metrics"))
            #expect(status == 200)
            text = String(decoding: body, as: UTF8.self)
            if expected.allSatisfy(text.contains) { break }
        }
        for line in expected {
            #expect(text.contains(line), "\(line) is not in:\n\(text)")
        }
        #expect(text.contains(#"openstorekit_notification_outbox_depth{tenant="ops"}"#))
    }

    @Test("A flag wins over its environment variable, even one whose value would be refused")
    func flagWinsOverVariable() async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let (server, address) = try await serve(
            ["--config", demoConfiguration, "--data-dir", dataDirectory.path, "--port", "0", "--host", "127.0.0.1", "--log-level", "info",
             "--notification-timeout", "2"],
            environment: [
                "OPENSTOREKIT_CONFIG": "/nonexistent.storekit", "OPENSTOREKIT_PORT": "not-a-port", "OPENSTOREKIT_HOST": "0.0.0.0",
                "OPENSTOREKIT_LOG_LEVEL": "loud", "OPENSTOREKIT_NOTIFICATION_TIMEOUT": "never",
            ]
        )
        #expect(address.hasPrefix("http://127.0.0.1:"))
        server.terminate()
        let finished = try await server.finished()
        #expect(finished.status == 0)
        #expect(!finished.errorOutput.contains("0.0.0.0"), "\(finished.errorOutput)")
    }

    @Test(
        "A variable's invalid value stops serve with an error naming the variable",
        arguments: [
            ("OPENSTOREKIT_PORT", "eighty"), ("OPENSTOREKIT_PORT", "70000"), ("OPENSTOREKIT_LOG_LEVEL", "loud"),
            ("OPENSTOREKIT_NOTIFICATION_TIMEOUT", "0"), ("OPENSTOREKIT_NOTIFICATION_URL", "ftp://example.com/apple"),
            ("OPENSTOREKIT_SHARED_SECRET", "com.example.demo"),
        ]
    )
    func invalidVariable(name: String, value: String) async throws {
        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let run = try await storekit(["serve", "--config", demoConfiguration, "--data-dir", dataDirectory.path], environment: [name: value])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains(name), "\(run.errorOutput)")
        #expect(run.errorOutput.contains(value), "\(run.errorOutput)")
    }

    @Test("serve without --config or OPENSTOREKIT_CONFIG says how to give one")
    func missingConfiguration() async throws {
        let run = try await storekit(["serve", "--data-dir", temporaryDataDirectory().path])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains("OPENSTOREKIT_CONFIG"), "\(run.errorOutput)")
    }
}
