/// The host names Apple's server libraries and `verifyReceipt` clients call, which `storekit serve` answers at over
/// HTTPS once a hosts entry points them at it.
///
/// Read from the libraries' sources (app-store-server-library for Python, Swift, Node and Java): the App Store Server
/// API's production and sandbox hosts in their current (`api.storekit…apple.com`) and earlier
/// (`api.storekit…itunes.apple.com`) spellings, and `local-testing-base-url`, the fixed host of their `LocalTesting`
/// environment; `verifyReceipt`'s production and sandbox hosts, which community clients hard-code.
public enum AppleHosts {
    /// The App Store Server API in production.
    public static let serverAPIProduction = "api.storekit.apple.com"
    /// The App Store Server API in the sandbox.
    public static let serverAPISandbox = "api.storekit-sandbox.apple.com"
    /// The production host of library versions before 2025.
    public static let serverAPIProductionLegacy = "api.storekit.itunes.apple.com"
    /// The sandbox host of library versions before 2025.
    public static let serverAPISandboxLegacy = "api.storekit-sandbox.itunes.apple.com"
    /// The host Apple's libraries call in their `LocalTesting` environment.
    public static let localTesting = "local-testing-base-url"
    /// `verifyReceipt` in production: `https://buy.itunes.apple.com/verifyReceipt`.
    public static let verifyReceiptProduction = "buy.itunes.apple.com"
    /// `verifyReceipt` in the sandbox: `https://sandbox.itunes.apple.com/verifyReceipt`.
    public static let verifyReceiptSandbox = "sandbox.itunes.apple.com"

    /// Every Apple host the store answers at, in the order a hosts line lists them.
    public static let all = [
        serverAPIProduction, serverAPISandbox, serverAPIProductionLegacy, serverAPISandboxLegacy, localTesting,
        verifyReceiptProduction, verifyReceiptSandbox,
    ]

    /// The names of this machine the server certificate also carries, so `https://localhost:PORT` and
    /// `https://127.0.0.1:PORT` work too.
    public static let loopback = ["localhost", "127.0.0.1", "::1"]
}
