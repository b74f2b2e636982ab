// A.10 SKRequest and SKRequestDelegate, checked against api-surface.md: each declaration's check follows a comment
// naming it.
import Foundation
import OpenStoreKit
import Testing

/// A request subclass in another module: Apple's `start()` and `cancel()` are `open`. (`delegate` is not overridable
/// on Linux: see `NotExpressibleOnLinux.swift`.)
///
/// `@unchecked Sendable`: restated from the superclass, as Swift asks; the subclass adds no stored properties.
final class ConformanceRequest: SKRequest, @unchecked Sendable {
    // A.10 SKRequest.start()
    override func start() {}
    // A.10 SKRequest.cancel()
    override func cancel() {}
}

/// A request delegate that implements nothing: Apple's two members are both optional, so both need defaults.
private final class EmptyRequestDelegate: NSObject, SKRequestDelegate {}

/// A request delegate that implements both members with Apple's signatures and records which ran.
private final class FullRequestDelegate: NSObject, SKRequestDelegate {
    var calls: [String] = []
    func requestDidFinish(_ request: SKRequest) { calls.append("requestDidFinish") }
    func request(_ request: SKRequest, didFailWithError error: any Error) { calls.append("didFailWithError") }
}

@Suite("A.10 SKRequest and SKRequestDelegate have Apple's declarations")
struct SKRequestConformance {
    @Test("A.10 SKRequest: the class, its delegate and methods")
    func request() {
        // A.10 SKRequest — open class, NSObject subclass (NS_SWIFT_NONSENDABLE)
        requireNSObjectSubclass(SKRequest.self)
        // `init()`, inherited from NSObject: what apps call to make test doubles, of the class and of subclasses
        let _: () -> SKRequest = { SKRequest() }
        let _: () -> ConformanceRequest = { ConformanceRequest() }

        // A.10 SKRequest.delegate
        let _: ReferenceWritableKeyPath<SKRequest, (any SKRequestDelegate)?> = \.delegate
        // A.10 SKRequest.start()
        let _: (SKRequest) -> () -> Void = SKRequest.start
        // A.10 SKRequest.cancel()
        let _: (SKRequest) -> () -> Void = SKRequest.cancel
    }

    @Test("A.10 SKRequest.delegate holds its delegate weakly")
    func delegateIsWeak() {
        // A.10 SKRequest.delegate — weak
        let request = ConformanceRequest()
        var delegate: EmptyRequestDelegate? = EmptyRequestDelegate()
        request.delegate = delegate
        #expect(request.delegate === delegate, "A.10 SKRequest.delegate keeps the delegate set")
        delegate = nil
        #expect(request.delegate == nil, "A.10 SKRequest.delegate is weak")
    }

    @Test("A.10 SKRequestDelegate: both members optional, callable on the existential, and requirements")
    func requestDelegate() {
        // A.10 SKRequestDelegate — protocol refining NSObjectProtocol
        let empty: any SKRequestDelegate = EmptyRequestDelegate()
        let _: any NSObjectProtocol = empty

        // A.10 SKRequestDelegate.requestDidFinish(_:) — optional
        let _: (any SKRequestDelegate, SKRequest) -> Void = { $0.requestDidFinish($1) }
        // A.10 SKRequestDelegate.request(_:didFailWithError:) — optional
        let _: (any SKRequestDelegate, SKRequest, any Error) -> Void = { $0.request($1, didFailWithError: $2) }

        let full = FullRequestDelegate()
        let delegate: any SKRequestDelegate = full
        let request = ConformanceRequest()
        empty.requestDidFinish(request)
        empty.request(request, didFailWithError: SKError(.unknown))
        delegate.requestDidFinish(request)
        delegate.request(request, didFailWithError: SKError(.unknown))
        #expect(full.calls == ["requestDidFinish", "didFailWithError"],
                "A.10 each SKRequestDelegate member is a requirement the delegate's implementation satisfies")
    }
}
