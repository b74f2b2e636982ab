import Foundation
import Testing
import TestProcesses

/// The control API against its own OpenAPI document: schemathesis (from PyPI, which `.ci/run` installs) reads
/// `GET /control/openapi.json` from a real `storekit serve` on loopback and sends every operation generated requests,
/// valid and invalid. Bad input must get a 4xx with a message; a 5xx fails the test.
@Suite("The control API under schemathesis")
struct ControlAPISchemathesisTests {
    /// The pinned version `.ci/run` installs.
    static let version = "4.32.5"

    @Test("No request schemathesis generates from the OpenAPI document gets a server error")
    func noServerErrors() async throws {
        let imported = try tool("python3", ["-c", "import schemathesis; print(schemathesis.__version__)"])
        try #require(imported.status == 0, "schemathesis is missing: python3 -m pip install schemathesis==\(Self.version)")
        #expect(imported.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.version)

        let dataDirectory = temporaryDataDirectory()
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        let started = try await startStorekitServe(dataDirectory: dataDirectory)
        defer { started.server.terminate() }
        let base = "http://127.0.0.1:\(started.port)"
        let run = try tool("python3", [
            "-c", "import sys; from schemathesis.cli import schemathesis; sys.argv[0] = 'schemathesis'; sys.exit(schemathesis())",
        ] + Self.arguments(base: base))
        try #require(
            run.status == 0,
            "schemathesis found server errors (exit \(run.status)):\n\(run.output.suffix(12_000))\n\(run.errorOutput.suffix(4_000))\nstorekit serve logged:\n\(started.server.errorTranscript.suffix(6_000))"
        )
        #expect(run.output.contains("No issues found"), "\(run.output.suffix(4_000))")
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
