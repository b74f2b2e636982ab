import Foundation
import TestProcesses
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The release archive (`Scripts/release.sh`) on a machine without Swift: unpacked into a minimal Debian root with only
/// the packages the README names, it serves, sells, and signs what Apple's library verifies.
///
/// `.ci/run` builds the archive and the root and names them in `OPENSTOREKIT_TEST_RELEASE_ARCHIVE` and
/// `OPENSTOREKIT_TEST_DEBIAN_ROOT` (`Scripts/debian-root.sh` makes the root); without them the test is skipped.
@Suite("The release archive runs without Swift", .limitsChildProcesses)
struct ReleaseArchiveTests {
    static let archive = ProcessInfo.processInfo.environment["OPENSTOREKIT_TEST_RELEASE_ARCHIVE"]
    static let debianRoot = ProcessInfo.processInfo.environment["OPENSTOREKIT_TEST_DEBIAN_ROOT"]

    @Test(
        "Unpacked into debootstrap's minbase plus the README's packages, storekit serve answers /health, sells a product, and its JWS verifies with Apple's library",
        .enabled(if: archive != nil && debianRoot != nil, "set by .ci/run: OPENSTOREKIT_TEST_RELEASE_ARCHIVE and OPENSTOREKIT_TEST_DEBIAN_ROOT")
    )
    func runsInMinimalDebian() async throws {
        let archive = try #require(Self.archive), root = URL(fileURLWithPath: try #require(Self.debianRoot))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("usr/bin/swift").path), "the root has no Swift")
        // A copy of the root per run, so the cached root stays as debootstrap left it.
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("openstorekit-release-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: sandbox) }
        #expect(try await tool("cp", ["-a", root.path, sandbox.path]).status == 0)
        let install = sandbox.appendingPathComponent("opt")
        let unpacked = try await tool("tar", ["-xzf", archive, "-C", install.path, "--strip-components=1"])
        #expect(unpacked.status == 0, "\(unpacked.errorOutput)")

        /// A command run inside the root, as on a machine of its own: chrooted, with a /proc of its own mounted in a
        /// mount namespace that ends with it (Foundation reads the command line from /proc/self/cmdline).
        func inRoot(_ command: [String]) -> [String] {
            ["--mount", "--fork", "--kill-child", "sh", "-c", #"mount -t proc proc "$0/proc" && exec chroot "$0" "$@""#, sandbox.path] + command
        }

        // Inside the root the binary finds only what the root has: its own loader and libraries.
        let missing = try await tool("unshare", inRoot(["/usr/bin/ldd", "/opt/bin/storekit"]))
        #expect(!missing.output.contains("not found"), "libraries the README does not name: \(missing.output)")

        let server = try ChildProcess.tool("unshare", inRoot([
            "/opt/bin/storekit", "serve", "--config", "/opt/examples/Demo.storekit", "--data-dir", "/var/lib/openstorekit", "--port", "0",
        ]))
        // unshare ignores SIGTERM while it waits for its child, which then outlives the test; killed, it takes the
        // child with it (--kill-child).
        defer { Task { try? await server.kill() } }
        let line = try await server.waitForLine(containing: "http://127.0.0.1:")
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        let health = try await httpGet(URL(string: "http://127.0.0.1:\(port)/health")!)
        #expect(health.status == 200)

        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/control/purchases")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"productId": "com.example.demo.premium", "bundleId": "com.example.demo"}"#.utf8)
        let (body, _) = try await URLSession.shared.data(for: request)
        let purchase = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "\(String(decoding: body, as: UTF8.self))")
        let signed = try #require(purchase["signedTransaction"] as? String, "\(purchase)")

        // The root the store inside made, exported by the binary inside, verifies the JWS with Apple's library.
        let rootFile = sandbox.appendingPathComponent("jws-root.cer")
        let exported = try await tool("unshare", inRoot(["/opt/bin/storekit", "ca", "export", "--data-dir", "/var/lib/openstorekit", "--root", "jws", "--der", "--out", "/jws-root.cer"]))
        #expect(exported.status == 0, "\(exported.errorOutput)")
        let token = sandbox.appendingPathComponent("transaction.jws")
        try Data(signed.utf8).write(to: token)
        let script = repositoryRoot.appendingPathComponent("Tests/AppStoreFormatsTests/Python/verify_signed_data.py")
        let verified = try await tool("python3", [script.path, "transaction", token.path, "--root", rootFile.path, "--bundle-id", "com.example.demo"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(verified.output.utf8)) as? [String: Any], "\(verified.output)\(verified.errorOutput)")
        #expect(answer["status"] as? String == "OK", "\(answer)")
        #expect((answer["payload"] as? [String: Any])?["productId"] as? String == "com.example.demo.premium")
    }
}
