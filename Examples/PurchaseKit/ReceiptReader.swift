#if canImport(StoreKit)
public import StoreKit
#else
public import OpenStoreKit
#endif

/// Why ``ReceiptReader`` has no receipt to give.
public enum ReceiptError: Error, Equatable, Sendable {
    /// The app has no receipt location: it runs without the App Store.
    case noReceiptURL
    /// There is no receipt at the location yet: nothing was bought, or the receipt needs a refresh.
    case noReceipt(URL)
    /// The receipt file exists but could not be read.
    case unreadable(URL, reason: String)
    /// Asking the App Store for a fresh receipt failed.
    case refreshFailed(SKError)
}

/// Reads the app's receipt — the signed list of the customer's purchases — to send to a server for validation, and
/// asks the App Store for a fresh one with `SKReceiptRefreshRequest` when it is missing.
///
/// The receipt's location is read once, when the reader is made; the file appears there with the first purchase.
///
/// ```swift
/// let reader = ReceiptReader()           // at launch
/// // … after a purchase:
/// let receipt = try reader.base64EncodedReceipt()
/// ```
///
/// `@unchecked Sendable`: the refresh in flight and its waiting completions are guarded by `lock`.
open class ReceiptReader: NSObject, SKRequestDelegate, @unchecked Sendable {
    /// Makes a receipt refresh request with the given receipt properties. The default asks the App Store; tests
    /// return a double.
    public typealias RefreshRequestFactory = ([String: Any]?) -> SKReceiptRefreshRequest

    /// Where the receipt is, or will be once there is one.
    public let receiptURL: URL?

    private let makeRefreshRequest: RefreshRequestFactory
    private let lock = NSLock()
    private var refresh: SKReceiptRefreshRequest?
    private var waiting: [(Result<Data, ReceiptError>) -> Void] = []

    /// A reader of the receipt at `receiptURL` — by default ``appStoreReceiptURL``, read now — that refreshes it with
    /// the requests `makeRefreshRequest` makes (`SKReceiptRefreshRequest(receiptProperties:)` by default).
    public init(
        receiptURL: URL? = ReceiptReader.appStoreReceiptURL,
        makeRefreshRequest: @escaping RefreshRequestFactory = { SKReceiptRefreshRequest(receiptProperties: $0) }
    ) {
        self.receiptURL = receiptURL
        self.makeRefreshRequest = makeRefreshRequest
        super.init()
    }

    /// Whether there is a receipt file to read.
    open var hasReceipt: Bool {
        guard let receiptURL else { return false }
        return FileManager.default.fileExists(atPath: receiptURL.path)
    }

    /// The receipt's bytes: a PKCS #7 container to send as it is.
    ///
    /// - Throws: ``ReceiptError/noReceiptURL``, ``ReceiptError/noReceipt(_:)`` or ``ReceiptError/unreadable(_:reason:)``.
    open func receiptData() throws(ReceiptError) -> Data {
        guard let receiptURL else { throw .noReceiptURL }
        guard FileManager.default.fileExists(atPath: receiptURL.path) else { throw .noReceipt(receiptURL) }
        do {
            return try Data(contentsOf: receiptURL)
        } catch {
            throw .unreadable(receiptURL, reason: error.localizedDescription)
        }
    }

    /// The receipt in Base64, as the App Store's `verifyReceipt` endpoint and most validation servers take it.
    ///
    /// - Throws: What ``receiptData()`` throws.
    open func base64EncodedReceipt() throws(ReceiptError) -> String {
        try receiptData().base64EncodedString()
    }

    /// Calls `completion` with the receipt, asking the App Store for a fresh one first when there is none, or when
    /// `forceRefresh` is set. Refreshing may ask the customer to sign in. A refresh asked for while another runs
    /// joins it.
    open func fetchReceipt(forceRefresh: Bool = false, completion: @escaping (Result<Data, ReceiptError>) -> Void) {
        if !forceRefresh, let data = try? receiptData() {
            return completion(.success(data))
        }
        guard receiptURL != nil else { return completion(.failure(.noReceiptURL)) }
        let request = lock.withLock { () -> SKReceiptRefreshRequest? in
            waiting.append(completion)
            guard refresh == nil else { return nil }
            let request = makeRefreshRequest(nil)
            refresh = request
            return request
        }
        guard let request else { return }
        request.delegate = self
        request.start()
    }

    private func completeRefresh(_ request: SKRequest, error: SKError?) {
        let completions = lock.withLock { () -> [(Result<Data, ReceiptError>) -> Void] in
            guard refresh === request else { return [] }
            refresh = nil
            defer { waiting = [] }
            return waiting
        }
        guard !completions.isEmpty else { return }
        let result: Result<Data, ReceiptError>
        if let error {
            result = .failure(.refreshFailed(error))
        } else {
            do throws(ReceiptError) {
                result = .success(try receiptData())
            } catch {
                result = .failure(error)
            }
        }
        for completion in completions { completion(result) }
    }

    // MARK: SKRequestDelegate

    /// Reads the refreshed receipt and answers the callers waiting for it.
    open func requestDidFinish(_ request: SKRequest) {
        completeRefresh(request, error: nil)
    }

    /// Answers the callers waiting for the refresh with its error.
    open func request(_ request: SKRequest, didFailWithError error: any Error) {
        completeRefresh(request, error: SKError.fromStoreKit(error))
    }
}
