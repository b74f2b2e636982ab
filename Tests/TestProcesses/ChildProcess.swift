public import Foundation
import Synchronization
public import Testing

/// A program a test runs as a separate process: `storekit`, the example app, `python3`, `openssl`.
///
/// Every test target runs its child processes through this one type, so all of them get the same treatment:
///
/// - a clean, explicit environment: `PATH`, `HOME`, `TMPDIR` and `LANG` of the test process, plus what the test
///   passes — never the developer's `OPENSTOREKIT_*` settings or anything else that makes a test depend on the
///   machine it runs on;
/// - standard output and standard error read as they come, so a chatty child never blocks on a full pipe;
/// - waits with no clock: a wait ends with what it waited for, or fails once the process can print no more;
/// - waits that suspend rather than block: Swift Testing runs tests on the cooperative thread pool, which has a
///   thread per core, so a test blocked on a child would hold one of them from every other test for the child's life.
public final class ChildProcess: Sendable {
    /// What a finished process returned and printed.
    public struct Finished: Sendable {
        /// The exit status (or the signal that ended it).
        public var status: Int32
        /// Everything it printed on standard output.
        public var output: String
        /// Everything it printed on standard error.
        public var errorOutput: String
    }

    /// The variables a child inherits from the test process.
    public static let inheritedVariables = ["PATH", "HOME", "TMPDIR", "LANG"]

    private let process: UncheckedProcess
    private let input: FileHandle?
    private let output = Awaited("")
    private let errors = Awaited("")
    private let exitStatus = Awaited<Int32?>(nil)

    /// `Process` is used only to launch the child, signal it and read its status.
    private struct UncheckedProcess: @unchecked Sendable {
        let value: Process
    }

    /// Starts `executable` with `arguments` in a clean environment plus `environment`.
    ///
    /// - Parameter interactive: gives the child a standard input the test writes with ``send(_:)``; otherwise
    ///   the child's standard input is empty.
    public init(
        _ executable: URL, _ arguments: [String] = [], environment: [String: String] = [:], interactive: Bool = false
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = Self.environment(environment)
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        if interactive {
            let stdin = Pipe()
            process.standardInput = stdin
            input = stdin.fileHandleForWriting
        } else {
            process.standardInput = FileHandle.nullDevice
            input = nil
        }
        self.process = UncheckedProcess(value: process)
        let exitStatus = exitStatus
        process.terminationHandler = { process in
            exitStatus.update { $0 = process.terminationStatus }
            exitStatus.close()
        }
        try process.run()
        Self.collect(stdout.fileHandleForReading, into: output)
        Self.collect(stderr.fileHandleForReading, into: errors)
    }

    /// Starts a tool found on the `PATH` (`python3`, `openssl`).
    public static func tool(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments, environment: environment)
    }

    /// The test process's inherited variables plus `extra`.
    public static func environment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { inheritedVariables.contains($0.key) }.merging(extra) { $1 }
    }

    private static func collect(_ handle: FileHandle, into text: Awaited<String>) {
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                text.update { $0 += String(decoding: data, as: UTF8.self) }
            }
            text.close()
        }
    }

    /// The process identifier.
    public var processIdentifier: Int32 { process.value.processIdentifier }

    /// Everything the program printed on standard output so far.
    public var transcript: String { output.current }

    /// Everything the program printed on standard error so far (a server's log).
    public var errorTranscript: String { errors.current }

    /// Sends a line to an interactive program.
    public func send(_ line: String) {
        input?.write(Data((line + "\n").utf8))
    }

    /// Closes an interactive program's input, as Ctrl-D in a terminal does.
    public func closeInput() throws {
        try input?.close()
    }

    /// Waits until the program printed a line containing `text` on standard output, after the first `skipping`
    /// such lines; fails the test if the program's output ends first.
    @discardableResult
    public func waitForLine(containing text: String, skipping: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await output.wait(for: "a line containing \"\(text)\"", sourceLocation: sourceLocation) { transcript in
            let lines = transcript.split(separator: "\n").filter { $0.contains(text) }
            return lines.count > skipping ? String(lines[skipping]) : nil
        }
    }

    /// Kills the program at once with SIGKILL, as a crash or the system would, and waits until it is gone.
    public func kill() async throws {
        Foundation.kill(process.value.processIdentifier, SIGKILL)
        _ = try await exitStatus.wait(for: "the program to die") { $0 }
    }

    /// Sends SIGTERM, as a service manager stopping the program would.
    public func terminate() {
        process.value.terminate()
    }

    /// How the process ended: by exiting or by a signal. Call after it finished.
    public var terminationReason: Process.TerminationReason { process.value.terminationReason }

    /// Waits for the program to exit and for its output to end; returns what it returned and printed.
    public func finished(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Finished {
        let status = try await exitStatus.wait(for: "the program to exit", sourceLocation: sourceLocation) { $0 }
        let output = try await output.wait(for: "the program's output to end") { text, closed in closed ? text : nil }
        let errors = try await errors.wait(for: "the program's error output to end") { text, closed in closed ? text : nil }
        return Finished(status: status, output: output, errorOutput: errors)
    }
}

/// A value other threads change, which a test can wait on until a condition holds or the value is closed (the
/// process exited, its output ended). No clock is involved.
final class Awaited<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        var closed = false
        var waiters: [UUID: @Sendable (Value, Bool) -> Bool] = [:]
    }

    private let state: Mutex<State>

    init(_ value: Value) {
        state = Mutex(State(value: value))
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
            _ = state.withLock { $0.waiters.removeValue(forKey: id) }
        }
    }

    /// Waits until `match` finds what it looks for; fails the test if the value is closed first.
    func wait<T: Sendable>(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ match: @escaping @Sendable (Value) -> T?
    ) async throws -> T {
        try await wait(for: what, sourceLocation: sourceLocation) { value, _ in match(value) }
    }

    /// Waits until `match`, given the value and whether it is closed, finds what it looks for; fails the test if
    /// the value is closed and `match` still finds nothing.
    func wait<T: Sendable>(
        for what: String, sourceLocation: SourceLocation = #_sourceLocation, _ match: @escaping @Sendable (Value, Bool) -> T?
    ) async throws -> T {
        let found: T? = await withCheckedContinuation { continuation in
            let resumed = Mutex(false)
            let resume: @Sendable (T?) -> Void = { value in
                let first = resumed.withLock { done in defer { done = true }; return !done }
                if first { continuation.resume(returning: value) }
            }
            state.withLock { $0.waiters[UUID()] = { value, closed in
                if let found = match(value, closed) { resume(found); return true }
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

/// What a test waited for can no longer happen.
public struct NeverHappened: Error {
    /// Creates the error.
    public init() {}
}

extension ChildProcess {
    /// The package's root directory, found from this file's location.
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// One of the package's executables (`storekit`, `InAppPurchases`), from the build the tests run in: `swift test`
    /// builds every executable of the package before it runs the tests.
    public static func builtExecutable(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        Issue.record("\(name) is not built next to the tests; run the tests with `swift test`, which builds it.", sourceLocation: sourceLocation)
        throw NeverHappened()
    }
}
