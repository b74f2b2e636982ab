// A.14 SKDownload, SKDownloadState and SKDownloadTimeRemainingUnknown, checked against api-surface.md: each
// declaration's check follows a comment naming it.
import Foundation
import OpenStoreKit
import Testing

/// A download subclass in another module: Apple's getters are `open`.
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceDownload: SKDownload, @unchecked Sendable {
    // A.14 SKDownload.state
    override var state: SKDownloadState { .waiting }
    // A.14 SKDownload.downloadState
    override var downloadState: SKDownloadState { .waiting }
    // A.14 SKDownload.expectedContentLength
    override var expectedContentLength: Int64 { 0 }
    // A.14 SKDownload.contentLength
    override var contentLength: Int64 { 0 }
    // A.14 SKDownload.contentIdentifier
    override var contentIdentifier: String { "" }
    // A.14 SKDownload.contentURL
    override var contentURL: URL? { nil }
    // A.14 SKDownload.contentVersion
    override var contentVersion: String { "" }
    // A.14 SKDownload.error
    override var error: (any Error)? { nil }
    // A.14 SKDownload.progress
    override var progress: Float { 0 }
    // A.14 SKDownload.timeRemaining
    override var timeRemaining: TimeInterval { SKDownloadTimeRemainingUnknown }
    // A.14 SKDownload.transaction
    override var transaction: SKPaymentTransaction { ConformanceTransaction() }
}

/// Names every case: a case added to or removed from `SKDownloadState` breaks this `switch`.
private func name(_ state: SKDownloadState) -> String {
    switch state {
    case .waiting: "waiting"
    case .active: "active"
    case .paused: "paused"
    case .finished: "finished"
    case .failed: "failed"
    case .cancelled: "cancelled"
    }
}

@Suite("A.14 SKDownload has Apple's declarations")
struct SKDownloadConformance {
    @Test("A.14 SKDownload: the class and its properties")
    func download() {
        // A.14 SKDownload — open class, NSObject subclass
        requireNSObjectSubclass(SKDownload.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKDownload = { SKDownload() }
        let _: () -> ConformanceDownload = { ConformanceDownload() }

        // A.14 SKDownload.state
        let _: KeyPath<SKDownload, SKDownloadState> = \.state
        // A.14 SKDownload.downloadState
        let _: KeyPath<SKDownload, SKDownloadState> = \.downloadState
        // A.14 SKDownload.expectedContentLength
        let _: KeyPath<SKDownload, Int64> = \.expectedContentLength
        // A.14 SKDownload.contentLength
        let _: KeyPath<SKDownload, Int64> = \.contentLength
        // A.14 SKDownload.contentIdentifier
        let _: KeyPath<SKDownload, String> = \.contentIdentifier
        // A.14 SKDownload.contentURL
        let _: KeyPath<SKDownload, URL?> = \.contentURL
        // A.14 SKDownload.contentVersion
        let _: KeyPath<SKDownload, String> = \.contentVersion
        // A.14 SKDownload.error
        let _: KeyPath<SKDownload, (any Error)?> = \.error
        // A.14 SKDownload.progress
        let _: KeyPath<SKDownload, Float> = \.progress
        // A.14 SKDownload.timeRemaining
        let _: KeyPath<SKDownload, TimeInterval> = \.timeRemaining
        // A.14 SKDownload.transaction
        let _: KeyPath<SKDownload, SKPaymentTransaction> = \.transaction
    }

    @Test("A.14 SKDownloadTimeRemainingUnknown is a TimeInterval of -1")
    func timeRemainingUnknown() {
        // A.14 SKDownloadTimeRemainingUnknown
        let unknown: TimeInterval = SKDownloadTimeRemainingUnknown
        #expect(unknown == -1, "A.14 SKDownloadTimeRemainingUnknown = -1")
    }

    @Test("A.14 SKDownloadState: Int raw values in Apple's order, every case, Sendable")
    func state() {
        // A.14 SKDownloadState — enum: Int, Sendable (NS_CLOSED_ENUM, @frozen)
        requireRawValue(SKDownloadState.self, Int.self)
        requireSendable(SKDownloadState.self)
        let _: (Int) -> SKDownloadState? = SKDownloadState.init(rawValue:)
        #expect(name(.waiting) == "waiting")

        // A.14 SKDownloadState.waiting = 0
        #expect(SKDownloadState.waiting.rawValue == 0, "A.14 SKDownloadState.waiting = 0")
        // A.14 SKDownloadState.active = 1
        #expect(SKDownloadState.active.rawValue == 1, "A.14 SKDownloadState.active = 1")
        // A.14 SKDownloadState.paused = 2
        #expect(SKDownloadState.paused.rawValue == 2, "A.14 SKDownloadState.paused = 2")
        // A.14 SKDownloadState.finished = 3
        #expect(SKDownloadState.finished.rawValue == 3, "A.14 SKDownloadState.finished = 3")
        // A.14 SKDownloadState.failed = 4
        #expect(SKDownloadState.failed.rawValue == 4, "A.14 SKDownloadState.failed = 4")
        // A.14 SKDownloadState.cancelled = 5
        #expect(SKDownloadState.cancelled.rawValue == 5, "A.14 SKDownloadState.cancelled = 5")
    }
}
