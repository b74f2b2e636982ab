public import Foundation

/// Where a download of hosted content stands. Raw values are Apple's.
@frozen public enum SKDownloadState: Int, Sendable {
    /// Not started, or waiting to start.
    case waiting = 0
    /// Copying content.
    case active = 1
    /// Paused by the app; resume it with `SKPaymentQueue.resume(_:)`.
    case paused = 2
    /// Complete: the content is at ``SKDownload/contentURL``.
    case finished = 3
    /// Failed: see ``SKDownload/error``.
    case failed = 4
    /// Cancelled by the app.
    case cancelled = 5
}

/// The value of ``SKDownload/timeRemaining`` when the remaining time is not known yet.
public let SKDownloadTimeRemainingUnknown: TimeInterval = -1

/// Content the store hosts for a purchased product, downloaded through the payment queue.
///
/// `.storekit` files carry no content, so the store hosts packages from a folder it is given
/// (`OPENSTOREKIT_HOSTED_CONTENT`, or `SKTestSession.hostedContentDirectory`): `<folder>/<product ID>/`, with
/// an optional `ContentInfo.plist` naming its `ContentVersion`. A purchased or restored transaction of such a
/// product carries one download; start it with `SKPaymentQueue.start(_:)` and follow it in
/// `paymentQueue(_:updatedDownloads:)`. Download before finishing the transaction: finishing cancels it.
///
/// `@unchecked Sendable`: the changing progress is guarded by the lock of `progressState`.
open class SKDownload: NSObject, @unchecked Sendable {
    let content: HostedContent
    private let owner: SKPaymentTransaction
    let progressState = Locked(Progress())

    struct Progress {
        var state = SKDownloadState.waiting
        var copiedBytes: Int64 = 0
        var files: [ContentFiles.File]?
        var fileIndex = 0
        var offsetInFile: Int64 = 0
        var destination: URL?
        var contentURL: URL?
        var error: SKError?
        var activeSince: ContinuousClock.Instant?
        var bytesAtResume: Int64 = 0
        var timeRemaining = SKDownloadTimeRemainingUnknown
    }

    /// A download of no content for an empty transaction, as StoreKit's `init()` makes; test doubles override
    /// the properties.
    public override init() {
        content = HostedContent(productID: "", version: "", length: 0, location: URL(fileURLWithPath: "/dev/null"))
        owner = SKPaymentTransaction()
        super.init()
    }

    init(content: HostedContent, transaction: SKPaymentTransaction) {
        self.content = content
        owner = transaction
        super.init()
    }

    /// Where the download stands.
    open var state: SKDownloadState { progressState.current.state }

    /// Where the download stands (the older name of ``state``).
    open var downloadState: SKDownloadState { state }

    /// The size of the content in bytes.
    open var expectedContentLength: Int64 { content.length }

    /// The size of the content in bytes (the older name of ``expectedContentLength``).
    open var contentLength: Int64 { content.length }

    /// The identifier of the content: the product identifier.
    open var contentIdentifier: String { content.productID }

    /// Where the downloaded content is, once the download finished.
    open var contentURL: URL? { progressState.current.contentURL }

    /// The version of the content.
    open var contentVersion: String { content.version }

    /// Why the download failed.
    open var error: (any Error)? { progressState.current.error }

    /// How much is downloaded, from 0 to 1.
    open var progress: Float {
        content.length == 0 ? (state == .finished ? 1 : 0) : Float(Double(progressState.current.copiedBytes) / Double(content.length))
    }

    /// The estimated seconds left, or ``SKDownloadTimeRemainingUnknown``.
    open var timeRemaining: TimeInterval { progressState.current.timeRemaining }

    /// The transaction the content was bought with.
    open var transaction: SKPaymentTransaction { owner }

    /// The product, state and progress.
    open override var description: String {
        "<SKDownload \(contentIdentifier) \(state) \(Int(progress * 100))%>"
    }
}
