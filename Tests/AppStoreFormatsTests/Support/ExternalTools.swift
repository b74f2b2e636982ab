import Foundation
import TestProcesses
import Testing

/// Runs the external verifiers the parity tests compare against: Apple's app-store-server-library (Python)
/// and OpenSSL. A missing tool fails the test with instructions; it never skips.
enum ExternalTools {
    struct Output {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Runs `arguments[0]` found on PATH with the rest as arguments, as a ``ChildProcess``: its output is read as it
    /// comes and the wait suspends the test rather than holding a thread of the cooperative pool.
    static func run(_ arguments: [String]) async throws -> Output {
        let finished = try await ChildProcess.tool(arguments[0], Array(arguments.dropFirst())).finished()
        return Output(status: finished.status, standardOutput: finished.output, standardError: finished.errorOutput)
    }

    static let missingLibraryMessage =
        "Apple's app-store-server-library is required for parity tests: pip install app-store-server-library==3.1.2"

    /// Runs one of the Python helpers and decodes its JSON output. Fails (does not skip) when python3 or the
    /// library is missing.
    static func python(_ script: String, _ arguments: [String]) async throws -> [String: Any] {
        let path = Fixtures.pythonDirectory.appendingPathComponent(script).path
        let output: Output
        do {
            output = try await run(["python3", path] + arguments)
        } catch {
            Issue.record("python3 could not be started (\(error)). Install Python 3, then: \(missingLibraryMessage)")
            throw error
        }
        let line = output.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        guard output.status == 0, let object else {
            let reason = output.status == 3 || output.standardError.contains("No module named") ? missingLibraryMessage : "python3 \(script) failed"
            Issue.record("\(reason)\nexit \(output.status)\nstdout: \(output.standardOutput)\nstderr: \(output.standardError)")
            throw ToolFailure(message: reason)
        }
        return object
    }

    /// Runs openssl; fails the test when it is not installed.
    static func openssl(_ arguments: [String]) async throws -> Output {
        do {
            return try await run(["openssl"] + arguments)
        } catch {
            Issue.record("openssl could not be started (\(error)); install OpenSSL 3 (apt-get install openssl).")
            throw error
        }
    }

    struct ToolFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
