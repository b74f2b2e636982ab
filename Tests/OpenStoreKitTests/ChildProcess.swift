import Foundation
import OpenStoreKit
import Testing

/// A program the test runs as a separate process, talking to it through its standard input and output.
final class ChildProcess: Sendable {
    private let process: UncheckedProcess
    private let input: FileHandle
    private let output = Awaited("")
    private let exited = Awaited<Int32?>(nil)

    /// `Process` is used from the test only to launch, signal and read the status of the child.
    private struct UncheckedProcess: @unchecked Sendable {
        let value: Process
    }

    /// Starts `executable` with `arguments` and a clean environment: the test's `PATH`, `HOME`, `TMPDIR` and
    /// `LANG`, and `environment` — never the developer's `OPENSTOREKIT_*` settings.
    init(_ executable: URL, arguments: [String] = [], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { ["PATH", "HOME", "TMPDIR", "LANG"].contains($0.key) }
            .merging(environment) { $1 }
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        self.process = UncheckedProcess(value: process)
        input = stdin.fileHandleForWriting
        let output = self.output, exited = self.exited
        process.terminationHandler = { process in
            exited.update { $0 = process.terminationStatus }
            exited.close()
        }
        try process.run()
        let reader = stdout.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = reader.availableData
                if data.isEmpty { break }
                output.update { $0 += String(decoding: data, as: UTF8.self) }
            }
            output.close()
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

/// A value another thread changes, which a test can wait on until a condition holds or the value is closed
/// (the process exited, its output ended). No clock is involved: a wait ends with what it waited for, or with
/// a failure once nothing more can come.
final class Awaited<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var closed = false
        var waiters: [UUID: @Sendable (Value, Bool) -> Bool] = [:]
    }

    private let state: Locked<State>

    init(_ value: Value) {
        state = Locked(State(value: value))
    }

    var current: Value { state.withLock { $0.value } }

    /// Changes the value and wakes the waiters whose condition now holds.
    func update(_ change: (inout Value) -> Void) {
        state.withLock { change(&$0.value) }
        wake()
    }

    /// No more changes will come; waiters whose condition does not hold give up.
    func close() {
        state.withLock { $0.closed = true }
        wake()
    }

    private func wake() {
        let (value, closed, waiters) = state.withLock { ($0.value, $0.closed, $0.waiters) }
        for (id, waiter) in waiters where waiter(value, closed) {
            state.withLock { $0.waiters[id] = nil }
        }
    }

    /// Waits until `match` finds what it looks for; fails the test if the value is closed first.
    @discardableResult
    func wait<T: Sendable>(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ match: @escaping @Sendable (Value) -> T?
    ) async throws -> T {
        let found: T? = await withCheckedContinuation { continuation in
            let resumed = Locked(false)
            let resume: @Sendable (T?) -> Void = { value in
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume(returning: value) }
            }
            state.withLock { $0.waiters[UUID()] = { value, closed in
                if let found = match(value) { resume(found); return true }
                if closed { resume(nil); return true }
                return false
            } }
            wake()
        }
        guard let found else {
            Issue.record("Gave up waiting for \(what): no more can come. Last seen: \(current)", sourceLocation: sourceLocation)
            throw NeverHappened()
        }
        return found
    }
}
