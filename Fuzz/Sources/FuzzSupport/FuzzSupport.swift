import CFuzzDriver
import Dispatch
public import Foundation

/// Runs `body` on the concurrency pool and blocks the calling (libFuzzer) thread until it returns, so a fuzz entry
/// point, which is synchronous C, can call the library's `async` verifiers.
public func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let outcome = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        outcome.value = await body()
        done.signal()
    }
    done.wait()
    return outcome.value!
}

/// The result slot of ``runBlocking(_:)``. `@unchecked Sendable`: the semaphore orders the task's one write before
/// the caller's one read, so no lock is needed.
private final class Outcome<T>: @unchecked Sendable {
    var value: T?
}

/// The fuzzer's input as `Data`.
public func fuzzInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> Data {
    guard let bytes, size > 0 else { return Data() }
    return Data(bytes: bytes, count: size)
}

/// Writes generated seeds when the environment variable `FUZZ_WRITE_SEEDS` names a folder, then exits.
///
/// `Scripts/fuzz.sh` runs each target once this way before fuzzing, so the corpus holds inputs made by this
/// repository's own signers next to the shared real-world ones. Call it from `LLVMFuzzerInitialize`.
public func writeSeedsIfAsked(_ seeds: () throws -> [String: Data]) {
    guard let folder = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] else { return }
    do {
        let directory = URL(fileURLWithPath: folder, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let made = try seeds()
        for (name, data) in made {
            try data.write(to: directory.appendingPathComponent(name))
        }
        print("Wrote \(made.count) seeds to \(folder).")
        exit(0)
    } catch {
        print("Writing seeds failed: \(error)")
        exit(1)
    }
}

/// A fixed date seeds are made at and tokens are checked against: 2025-06-01T12:00:00Z.
public let fuzzNow = Date(timeIntervalSince1970: 1_748_779_200)

/// Base64url without padding, as JWS segments are written.
public func base64URL(_ data: Data) -> String {
    data.base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// Runs libFuzzer on `callback` with the process's command line: what a target's `<Module>_main` (the `main` SwiftPM
/// gives an executable target) calls.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}
