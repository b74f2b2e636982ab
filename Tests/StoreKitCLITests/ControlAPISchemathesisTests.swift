import Foundation
import Testing
import TestProcesses
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The control API against its own OpenAPI document: schemathesis (from PyPI, which `.ci/run` installs) reads
/// `GET /control/openapi.json` from a real `storekit serve` on loopback and sends every operation generated requests,
/// valid and invalid. Bad input must get a 4xx with a message; a 5xx fails the test.
@Suite("The control API under schemathesis", .limitsChildProcesses)
struct ControlAPISchemathesisTests {
    /// The pinned version `.ci/run` installs.
    static let version = "4.32.5"

    @Test("No request schemathesis generates from the OpenAPI document gets a server error")
    func noServerErrors() async throws {
        let imported = try await tool("python3", ["-c", "import schemathesis; print(schemathesis.__version__)"])
        try #require(imported.status == 0, "schemathesis is missing: python3 -m pip install schemathesis==\(Self.version)")
        #expect(imported.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.version)

        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let started = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { started.server.terminate() }
        let base = "http://127.0.0.1:\(started.port)"
        // Transactions 2000000000000001 (a non-consumable) and …2 (a subscription), the document's example
        // identifiers, so the operations on a transaction or subscription act on real ones too.
        for product in ["com.example.demo.premium", "com.example.demo.plus.monthly"] {
            var request = URLRequest(url: URL(string: "\(base)/control/purchases")!)
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"productId": "\#(product)"}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
        let run = try await tool("python3", [
            "-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
        ] + Self.arguments(base: base))
        try #require(
            run.status == 0,
            "schemathesis found server errors (exit \(run.status)):\n\(run.output.suffix(12_000))\n\(run.errorOutput.suffix(4_000))\nstorekit serve logged:\n\(started.server.errorTranscript.suffix(6_000))"
        )
        // "N generated, N passed": every generated case ran and none failed.
        let summary = run.output.split(separator: "\n").last { $0.contains(" generated, ") }.map(String.init) ?? ""
        let counts = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(counts.count == 2 && counts[0] == counts[1] && counts[0] > 500, "\(run.output.suffix(4_000))")
    }

    /// The command line after `schemathesis`: only the server-error check, a bounded number of examples per
    /// operation, one worker, a fixed seed; the event stream, which never ends, is left out.
    static func arguments(base: String) -> [String] {
        [
            "run", "\(base)/control/openapi.json", "--url", base,
            "--checks", "not_a_server_error", "--phases", "examples,coverage,fuzzing",
            "--max-examples", "30", "--seed", "1", "--workers", "1", "--request-timeout", "20",
            "--exclude-path", "/control/events", "--generation-database", "none", "--no-color",
        ]
    }
}
