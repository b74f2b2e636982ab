import Foundation
import Testing

/// A program the test runs as a separate process, talking to it through its standard input and output.
final class ChildProcess: Sendable {
    private let process: UncheckedProcess
    private let input: FileHandle
    private let output = Watched("")
    private let exited = Watched<Int32?>(nil)

    /// `Process` is used from the test only to launch, signal and read the status of the child.
    private struct UncheckedProcess: @unchecked Sendable {
        let value: Process
    }

    /// Starts `executable` with `arguments` and exactly `environment` added to the test's environment.
    init(_ executable: URL, arguments: [String] = [], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        self.process = UncheckedProcess(value: process)
        input = stdin.fileHandleForWriting
        let output = self.output, exited = self.exited
        process.terminationHandler = { process in
            exited.update { $0 = process.terminationStatus }
        }
        try process.run()
        let reader = stdout.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                output.update { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
    }

    /// Everything the program printed so far.
    var transcript: String { output.current }

    /// Sends a line to the program.
    func send(_ line: String) {
        input.write(Data((line + "\n").utf8))
    }

    /// Waits until the program printed a line containing `text` after the first `skipping` such lines.
    @discardableResult
    func waitForLine(containing text: String, skipping: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await output.wait(for: "a line containing \"\(text)\"", sourceLocation: sourceLocation) { transcript in
            let lines = transcript.split(separator: "\n").filter { $0.contains(text) }
            return lines.count > skipping ? String(lines[skipping]) : nil
        }
    }

    /// Kills the program at once with SIGKILL, as a crash or the system would.
    func kill() async throws {
        Foundation.kill(process.value.processIdentifier, SIGKILL)
        _ = try await exited.wait(for: "the program to die") { $0 }
    }

    /// Closes the program's input and waits for it to exit; returns its status.
    func finish() async throws -> Int32 {
        try input.close()
        return try await exited.wait(for: "the program to exit") { $0 }
    }
}

/// Where `swift build` put the package's executables: next to the test bundle.
func builtExecutable(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
    let directory = Bundle.main.executableURL?.deletingLastPathComponent()
        ?? packageRoot.appendingPathComponent(".build/debug")
    let url = directory.appendingPathComponent(name)
    try #require(
        FileManager.default.isExecutableFile(atPath: url.path),
        "\(name) is not built at \(url.path); run `swift build` (CI runs `swift build --build-tests`) first.",
        sourceLocation: sourceLocation
    )
    return url
}
