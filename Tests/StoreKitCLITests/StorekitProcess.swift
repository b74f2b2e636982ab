import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The repository's root, found from this file's location.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The demo configuration the README uses.
let demoConfiguration = repositoryRoot.appendingPathComponent("Examples/Demo.storekit").path

/// The `storekit` executable built next to the test bundle.
let storekitExecutable: URL = {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = testBinary.deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent("storekit")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/storekit")
}()

/// What a finished process printed and returned.
struct StorekitRun {
    var status: Int32
    var output: String
    var errorOutput: String
}

/// Runs `storekit` with `arguments` to completion.
func storekit(_ arguments: [String], environment: [String: String] = [:]) throws -> StorekitRun {
    try run(storekitExecutable, arguments, environment: environment)
}

/// Runs a tool found on the PATH (`python3`, `openssl`) to completion.
func tool(_ name: String, _ arguments: [String]) throws -> StorekitRun {
    try run(URL(fileURLWithPath: "/usr/bin/env"), [name] + arguments)
}

/// Runs an executable to completion, collecting what it prints.
func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> StorekitRun {
    try ChildProcess(executable, arguments, environment: environment).wait()
}

/// Starts every `storekit` command line at once, then waits for all of them: processes racing on one store.
func storekitConcurrently(_ commandLines: [[String]]) throws -> [StorekitRun] {
    let children = try commandLines.map { try ChildProcess(storekitExecutable, $0) }
    return children.map { $0.wait() }
}

/// A started child process with a clean, explicit environment: `PATH`, `HOME` and `TMPDIR` of the test
/// process (so tools and temporary files are found) and what the test passes — never the developer's
/// `OPENSTOREKIT_*` settings or anything else that would make a test depend on the machine it runs on.
struct ChildProcess {
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    /// The variables a child inherits from the test process.
    static let inheritedVariables = ["PATH", "HOME", "TMPDIR", "LANG"]

    /// The inherited variables plus `extra`.
    static func environment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { inheritedVariables.contains($0.key) }.merging(extra) { $1 }
    }

    /// Starts `executable`.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = Self.environment(environment)
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Waits for the process to exit and returns what it printed.
    func wait() -> StorekitRun {
        // Read the pipes to their end before waiting, so the child never blocks on a full pipe while we wait.
        // Standard error is read second: the commands print little there.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return StorekitRun(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            errorOutput: String(decoding: errorData, as: UTF8.self)
        )
    }
}

/// A fresh, empty data directory.
func temporaryDataDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-cli-\(UUID().uuidString)")
}

/// Fetches a URL on loopback and returns the status and body.
func httpGet(_ url: URL) async throws -> (status: Int, body: Data) {
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}
