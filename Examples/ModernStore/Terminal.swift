#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

/// The terminal the app talks through: lines out, lines in.
enum Terminal {
    /// Writes a line at once, unbuffered, so a program reading the output sees it in order.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Reads the next line of input without blocking the main actor, where the store updates its state.
    static func readCommand() async -> String? {
        await Task.detached { readLine() }.value
    }
}
