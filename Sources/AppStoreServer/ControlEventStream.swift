import AppStoreEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /control/events`: the store's changes as server-sent events, for pages and tools that follow a store live.
///
/// Each event names what changed — `transactions`, `subscriptions`, `notifications`, `clock`, `settings`, `accounts`
/// or `intents` — and carries no data beyond that: a listener reads what it shows again. A comment line every 15
/// seconds keeps proxies from closing a quiet stream; the stream ends when the client goes away or the server shuts
/// down gracefully.
struct ControlEventStream {
    let engine: StoreEngine

    /// What changed, as the names of the events to send.
    static func names(of event: StoreEvent) -> [String] {
        switch event {
        case .transactionUpdated, .transactionsRevoked, .transactionsDeleted, .transactionsCleared, .refundRequestChanged: ["transactions"]
        case .subscriptionsChanged, .priceIncreaseConsentRequested: ["subscriptions"]
        case .notificationsChanged: ["notifications"]
        case .clockMoved: ["clock"]
        case .settingsChanged: ["settings"]
        case .storefrontChanged: ["accounts"]
        case .purchaseIntentAdded: ["intents"]
        // Another server committed something: every section that shows stored state looks again.
        case .changedElsewhere: ["transactions", "subscriptions", "notifications", "clock", "accounts", "intents"]
        }
    }

    func add(to router: Router<StoreRequestContext>) {
        router.on(.streamEvents) { _, _ -> Response in
            let events = await engine.events()
            let (lines, output) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
            let relay = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await event in events {
                            for name in Self.names(of: event) { output.yield("event: \(name)\ndata: {}\n\n") }
                        }
                    }
                    group.addTask {
                        while (try? await Task.sleep(for: .seconds(15))) != nil { output.yield(": still here\n\n") }
                    }
                    await group.next()
                    group.cancelAll()
                }
                output.finish()
            }
            output.onTermination = { _ in relay.cancel() }
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    defer { relay.cancel() }
                    // An open stream must not hold up a graceful shutdown, which waits for the requests in flight.
                    try await withGracefulShutdownHandler {
                        // Tell the browser to reconnect a second after a dropped connection.
                        try await writer.write(ByteBuffer(string: "retry: 1000\n: connected\n\n"))
                        for await line in lines {
                            try await writer.write(ByteBuffer(string: line))
                        }
                    } onGracefulShutdown: {
                        output.finish()
                    }
                    try await writer.finish(nil)
                }
            )
        }
    }
}
