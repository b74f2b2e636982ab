import Mustache

/// The transaction manager's Mustache templates.
///
/// They are compiled into the binary rather than shipped as resource files: SwiftPM puts resources in a bundle
/// folder beside the executable on Linux, and `storekit serve` is meant to be one file that runs anywhere.
enum ManagerTemplates {
    /// Renders `model` with the template called `name`.
    static func render(_ model: Any, _ name: String) -> String {
        library.render(model, withTemplate: name) ?? ""
    }

    private static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in templates {
            // The templates are constants checked by the tests: a parse error is a programming error.
            do { try library.register(text, named: name) } catch { fatalError("Template \(name) does not parse: \(error)") }
        }
        return library
    }()

    private static let templates: [String: String] = [
        "page": page, "clock": clock, "settings": settings, "buy": buy, "transactions": transactions,
        "notifications": notifications, "catalog": catalog, "transaction-detail": transactionDetail,
        "notification-detail": notificationDetail,
    ]

    private static let page = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>{{tenant}} · OpenStoreKit transaction manager</title>
    <link rel="stylesheet" href="{{basePath}}manage/assets/manager.css">
    <script src="{{basePath}}manage/assets/manager.js" defer></script>
    </head>
    <body data-base="{{basePath}}">
    <script type="application/json" id="control-operations">{{{operations}}}</script>
    <a class="skip" href="#transactions-title">Skip to transactions</a>
    <header class="top">
      <h1>OpenStoreKit <span>transaction manager</span></h1>
      <nav aria-label="Store">
        {{#hasTenants}}
        <label>Tenant
          <select id="tenant-picker">
            {{#tenants}}<option value="{{path}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/tenants}}
          </select>
        </label>
        {{/hasTenants}}
        {{^hasTenants}}<span class="tenant">Store <strong>{{tenant}}</strong></span>{{/hasTenants}}
      </nav>
      {{#canReset}}
      <form data-operation="resetTenant" data-name="{{tenant}}" data-server-wide data-reload data-confirm="Erase every account, purchase, subscription and notification of store {{tenant}}, and set its clock back to wall time?" class="inline" aria-label="Reset the store">
        <button type="submit" class="danger quiet">Reset store</button>
        <span class="message" data-message role="status" aria-live="polite"></span>
      </form>
      {{/canReset}}
      <span id="live" class="live" role="status" aria-live="polite">connecting…</span>
      <button type="button" id="theme-toggle" class="quiet" aria-label="Colour theme: automatic">Theme: auto</button>
    </header>
    <main class="layout">
      <div class="side">
        <section id="clock" data-section="clock" aria-labelledby="clock-title">{{#clock}}{{> clock}}{{/clock}}</section>
        <section id="buy" data-section="buy" aria-labelledby="buy-title">{{#buy}}{{> buy}}{{/buy}}</section>
        <section id="settings" data-section="settings" aria-labelledby="settings-title">{{#settings}}{{> settings}}{{/settings}}</section>
      </div>
      <div class="main">
        <section id="transactions" data-section="transactions" aria-labelledby="transactions-title">{{#transactions}}{{> transactions}}{{/transactions}}</section>
        <section id="notifications" data-section="notifications" aria-labelledby="notifications-title">{{#notifications}}{{> notifications}}{{/notifications}}</section>
        <section id="catalog" data-section="catalog" aria-labelledby="catalog-title">{{#catalog}}{{> catalog}}{{/catalog}}</section>
      </div>
    </main>
    <footer>OpenStoreKit {{version}} · everything here is also the control API (<code>{{basePath}}control/…</code>) and <code>storekit</code> commands</footer>
    </body>
    </html>
    """

    private static let clock = """
    <h2 id="clock-title">Clock</h2>
    <p class="now"><time datetime="{{now}}" id="clock-now">{{nowReadable}}</time></p>
    <form data-operation="advanceClock" class="stack" aria-label="Advance the clock">
      <div class="buttons" role="group" aria-label="Advance by">
        {{#presets}}<button type="submit" data-body='{"by": "{{by}}"}'>{{label}}</button>{{/presets}}
      </div>
      <label>Advance to (UTC)<input type="datetime-local" name="to" data-type="utc-date" min="{{localNow}}" value="{{localNow}}"></label>
      <button type="submit" name="advance-to">Advance to date</button>
      <p class="message" data-message role="status" aria-live="polite"></p>
      <ul class="fired" data-fired aria-label="What the move fired"></ul>
    </form>
    <form data-operation="setTimeRate" class="stack" aria-label="Time rate">
      <label>Time rate
        <select name="timeRate">{{#rates}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/rates}}</select>
      </label>
      <button type="submit">Set rate</button>
      <p class="message" data-message role="status" aria-live="polite"></p>
    </form>
    """

    private static let settings = """
    <h2 id="settings-title">Test switches</h2>
    <form data-operation="updateSettings" class="stack" aria-label="Test switches">
      <fieldset>
        <legend>Switches</legend>
        {{#switches}}<label class="check"><input type="checkbox" name="{{name}}" data-type="bool"{{#checked}} checked{{/checked}}> {{label}}</label>{{/switches}}
      </fieldset>
      <label>Failure error code<input type="number" name="failureErrorCode" data-type="int" value="{{failureErrorCode}}" min="0"></label>
      <label>Renewal limit<input type="number" name="renewalLimit" data-type="int" value="{{renewalLimit}}" min="0" placeholder="none"></label>
      <label>Storefront
        <select name="storefront">{{#storefronts}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/storefronts}}</select>
      </label>
      <label>Locale<input name="locale" value="{{locale}}" autocomplete="off"></label>
      <button type="submit">Save switches</button>
      <p class="message" data-message role="status" aria-live="polite"></p>
    </form>
    """

    private static let buy = """
    <h2 id="buy-title">Buy and promote</h2>
    <datalist id="known-accounts">{{#accounts}}<option value="{{.}}">{{/accounts}}</datalist>
    <form data-operation="purchase" class="stack" aria-label="Buy for an account">
      <label>Product<select name="productId" required>{{#products}}<option value="{{value}}">{{label}}</option>{{/products}}</select></label>
      <label>Account<input name="account" value="{{defaultAccount}}" list="known-accounts" autocomplete="off" required></label>
      <label>App (bundle ID)<input name="bundleId" value="{{defaultBundle}}" autocomplete="off" required></label>
      <label>Quantity<input type="number" name="quantity" data-type="int" value="1" min="1"></label>
      <label>Offer code (reference name)<input name="offerCode" data-omit-empty autocomplete="off"></label>
      <button type="submit" class="primary">Buy</button>
      <p class="message" data-message role="status" aria-live="polite"></p>
    </form>
    <form data-operation="addPurchaseIntent" class="stack" aria-label="Promote a purchase">
      <label>Promoted product<select name="productId">{{#products}}<option value="{{value}}">{{label}}</option>{{/products}}</select></label>
      <label>Account<input name="account" value="{{defaultAccount}}" list="known-accounts" autocomplete="off"></label>
      <label>App (bundle ID)<input name="bundleId" value="{{defaultBundle}}" autocomplete="off"></label>
      <label>Win-back offer<select name="winBackOfferId" data-omit-empty><option value="">none</option>{{#winBackOffers}}<option value="{{value}}">{{label}}</option>{{/winBackOffers}}</select></label>
      <button type="submit">Promote</button>
      <p class="message" data-message role="status" aria-live="polite"></p>
    </form>
    <form data-operation="redeemOfferCode" class="stack" aria-label="Redeem an offer code">
      <label>Offer code (reference name)<input name="code" autocomplete="off" required></label>
      <label>Account<input name="account" value="{{defaultAccount}}" list="known-accounts" autocomplete="off"></label>
      <label>App (bundle ID)<input name="bundleId" value="{{defaultBundle}}" autocomplete="off"></label>
      <button type="submit">Redeem on the App Store</button>
      <p class="message" data-message role="status" aria-live="polite"></p>
    </form>
    <form data-operation="joinFamily" data-refresh="catalog" class="stack" aria-label="Family Sharing">
      <label>Account<input name="account" list="known-accounts" autocomplete="off" required></label>
      <label>Family<input name="family" autocomplete="off" placeholder="smiths"></label>
      <div class="buttons">
        <button type="submit">Join family</button>
        <button type="submit" data-operation="leaveFamily">Leave family</button>
      </div>
      <p class="message" data-message role="status" aria-live="polite"></p>
    </form>
    """

    private static let transactions = """
    <div class="section-head">
      <h2 id="transactions-title">Transactions <span class="count">{{shown}}{{#isFiltered}} of {{total}}{{/isFiltered}}</span></h2>
      <form data-operation="clearTransactions" data-confirm="Delete every transaction of this store?" class="inline">
        <button type="submit" class="danger">Clear all</button>
        <span class="message" data-message role="status" aria-live="polite"></span>
      </form>
    </div>
    <form class="filters" id="transaction-filters" aria-label="Filter transactions">
      <label>Account<select name="account"><option value="">all</option>{{#accounts}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/accounts}}</select></label>
      <label>App<select name="app"><option value="">all</option>{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/apps}}</select></label>
      <label>Product<select name="product"><option value="">all</option>{{#products}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/products}}</select></label>
      <label>State<select name="state"><option value="">all</option>{{#states}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/states}}</select></label>
    </form>
    {{#isEmpty}}<p class="empty">No transactions{{#isFiltered}} match these filters{{/isFiltered}}. Buy something on the left, or from an app.</p>{{/isEmpty}}
    {{^isEmpty}}
    <div class="table-wrap">
    <table class="rows">
      <thead><tr><th scope="col">ID</th><th scope="col">Product</th><th scope="col">Account · app</th><th scope="col">State</th><th scope="col">Date</th><th scope="col">Actions</th></tr></thead>
      <tbody>
      {{#rows}}
      <tr class="row" data-transaction="{{id}}" data-state="{{state}}">
        <td><button type="button" class="expand" aria-expanded="false" aria-controls="tx-detail-{{id}}" data-detail="manage/transactions/{{id}}">{{id}}</button></td>
        <td><span class="name">{{productName}}</span><small>{{productId}} · {{type}}{{quantityLabel}}</small></td>
        <td>{{account}}<small>{{bundleId}} · {{origin}}</small></td>
        <td><span class="badge {{tone}}" data-state-label>{{state}}</span>{{#subscriptionStatus}}<small>{{subscriptionStatus}}</small>{{/subscriptionStatus}}{{#refundRequest}}<small data-refund-request>{{refundRequest}}</small>{{/refundRequest}}</td>
        <td><time datetime="{{purchaseDate}}">{{purchaseDateText}}</time>{{#expiresDate}}<small>expires <time datetime="{{expiresDate}}">{{expiresDateText}}</time></small>{{/expiresDate}}</td>
        <td class="actions">
          <form data-id="{{id}}" class="inline" aria-label="Actions on transaction {{id}}">
            {{#isPendingApproval}}
            <button type="submit" data-operation="approveTransaction" class="primary">Approve</button>
            <button type="submit" data-operation="declineTransaction">Decline</button>
            {{/isPendingApproval}}
            {{#canResolve}}<button type="submit" data-operation="resolveTransaction">Resolve issue</button>{{/canResolve}}
            {{#canRefund}}
            <label class="compact">Reason<select name="reason"><option value="other">other</option><option value="app-issue">app issue</option></select></label>
            <button type="submit" data-operation="refundTransaction" data-action="refund">Refund</button>
            {{/canRefund}}
            {{#canRequestRefund}}<button type="submit" data-operation="requestRefund" data-body='{"reason": "OTHER"}' data-action="refund-request">Customer asks for refund</button>{{/canRequestRefund}}
            {{#refundPending}}
            <button type="submit" data-operation="decideRefundRequest" data-body='{"decision": "refund"}' data-action="refund-full">Refund in full</button>
            <label class="compact">Milli-percent<input type="number" name="revocationPercentage" data-type="int" value="50000" min="1" max="100000"></label>
            <button type="submit" data-operation="decideRefundRequest" data-body='{"decision": "prorated"}' data-action="refund-prorated">Refund prorated</button>
            <button type="submit" data-operation="decideRefundRequest" data-body='{"decision": "decline"}' data-action="refund-decline">Decline refund</button>
            {{/refundPending}}
            {{#canReverseRefund}}<button type="submit" data-operation="reverseRefund" data-action="reverse-refund">Reverse refund</button>{{/canReverseRefund}}
            <button type="submit" data-operation="deleteTransaction" data-confirm="Delete transaction {{id}} and what derives from it?" class="danger quiet">Delete</button>
            <span class="message" data-message role="status" aria-live="polite"></span>
          </form>
        </td>
      </tr>
      <tr class="detail" id="tx-detail-{{id}}" hidden><td colspan="6" data-detail-body></td></tr>
      {{/rows}}
      </tbody>
    </table>
    </div>
    {{#hidden}}<p class="empty">{{hidden}} older transactions are not shown: narrow the list with the filters, or use <code>storekit tx list</code>.</p>{{/hidden}}
    {{/isEmpty}}
    """

    private static let transactionDetail = """
    <div class="detail-grid">
      {{#subscription}}
      <div class="panel">
        <h3>Subscription {{productId}}</h3>
        <p>Status <strong>{{status}}</strong> · renews into {{autoRenewProductId}} · period ends <time>{{expiresDate}}</time> · {{renewalCount}} renewals</p>
        <form data-id="{{id}}" class="inline" aria-label="Subscription actions">
          {{#isLive}}
          <button type="submit" data-operation="subscriptionRenew">Renew now</button>
          <button type="submit" data-operation="subscriptionExpire">Expire now</button>
          {{#autoRenewEnabled}}<button type="submit" data-operation="subscriptionAutoRenew" data-body='{"enabled": false}'>Turn auto-renew off</button>{{/autoRenewEnabled}}
          {{^autoRenewEnabled}}<button type="submit" data-operation="subscriptionAutoRenew" data-body='{"enabled": true}'>Turn auto-renew on</button>{{/autoRenewEnabled}}
          {{/isLive}}
          {{#canRequestPriceConsent}}<button type="submit" data-operation="subscriptionPriceIncrease">Request price consent</button>{{/canRequestPriceConsent}}
          {{#priceConsentPending}}
          <button type="submit" data-operation="subscriptionPriceIncreaseAnswer" data-body='{"consented": true}'>Consent to price</button>
          <button type="submit" data-operation="subscriptionPriceIncreaseAnswer" data-body='{"consented": false}'>Decline price</button>
          {{/priceConsentPending}}
          <span class="message" data-message role="status" aria-live="polite"></span>
        </form>
        <h4>Renewal info (signedRenewalInfo, decoded)</h4>
        <pre>{{renewalInfo}}</pre>
        <h4>pending_renewal_info</h4>
        <pre>{{pendingRenewal}}</pre>
      </div>
      {{/subscription}}
      {{#refundRequest}}
      <div class="panel" data-refund-panel>
        <h3>Refund request</h3>
        <p>Status <strong>{{status}}</strong> · consumptionRequestReason {{reason}} · asked <time>{{requestDate}}</time>{{#decisionDate}} · decided <time>{{decisionDate}}</time>{{/decisionDate}}</p>
        <h4>Consumption information (Send Consumption Information)</h4>
        {{#consumption}}<p><small>v{{version}} · <time>{{date}}</time></small></p><pre>{{fields}}</pre>{{/consumption}}
        {{^hasConsumption}}<p class="empty">The app's server sent none yet.</p>{{/hasConsumption}}
      </div>
      {{/refundRequest}}
      {{#payload}}
      <div class="panel">
        <h3>Signed transaction (JWS, decoded)</h3>
        <h4>Header</h4>
        <pre>{{header}}</pre>
        <h4>Payload</h4>
        <pre data-jws-payload>{{payload}}</pre>
      </div>
      <div class="panel">
        <h3>Receipt entry (verifyReceipt in_app)</h3>
        <pre>{{receiptEntry}}</pre>
      </div>
      {{/payload}}
      {{^payload}}<p class="empty">Transaction {{id}} did not complete, so nothing was signed for it.</p>{{/payload}}
    </div>
    """

    private static let notifications = """
    <div class="section-head">
      <h2 id="notifications-title">Notifications <span class="count">{{count}}</span></h2>
    </div>
    {{#sends}}
    <form data-operation="setNotificationURL" class="filters" aria-label="Notification URL">
      <label>Send to (every app)<input type="url" name="url" data-null-if-empty value="{{defaultURL}}" placeholder="http://127.0.0.1:9000/notifications"></label>
      <button type="submit">Set URL</button>
      {{#appURLs}}<small>{{bundleId}} → {{url}}</small>{{/appURLs}}
      <span class="message" data-message role="status" aria-live="polite"></span>
    </form>
    {{/sends}}
    {{^sends}}<p class="empty">This server sends no notifications; they are kept here.</p>{{/sends}}
    {{#isEmpty}}<p class="empty">No notifications yet.</p>{{/isEmpty}}
    {{^isEmpty}}
    <div class="table-wrap">
    <table class="rows">
      <thead><tr><th scope="col">Type</th><th scope="col">Date</th><th scope="col">Transaction</th><th scope="col">Delivery</th><th scope="col">Actions</th></tr></thead>
      <tbody>
      {{#rows}}
      <tr class="row" data-notification="{{uuid}}" data-type="{{summary}}">
        <td><button type="button" class="expand" aria-expanded="false" aria-controls="nt-detail-{{uuid}}" data-detail="manage/notifications/{{uuid}}">{{summary}}</button><small>{{bundleId}} · {{account}}</small></td>
        <td><time datetime="{{date}}">{{dateText}}</time></td>
        <td>{{transactionId}}</td>
        <td><span class="badge {{tone}}">{{delivery}}</span><small>{{attemptCount}} attempts{{#nextAttemptDate}} · next <time datetime="{{nextAttemptDate}}">{{nextAttemptDateText}}</time>{{/nextAttemptDate}}</small></td>
        <td class="actions">
          <form data-operation="redeliverNotification" data-uuid="{{uuid}}" class="inline" aria-label="Redeliver notification">
            <button type="submit">Redeliver</button>
            <span class="message" data-message role="status" aria-live="polite"></span>
          </form>
        </td>
      </tr>
      <tr class="detail" id="nt-detail-{{uuid}}" hidden><td colspan="5" data-detail-body></td></tr>
      {{/rows}}
      </tbody>
    </table>
    </div>
    {{#hidden}}<p class="empty">{{hidden}} older notifications are not shown: <code>storekit notifications list</code> has them all.</p>{{/hidden}}
    {{/isEmpty}}
    """

    private static let notificationDetail = """
    <div class="detail-grid">
      <div class="panel">
        <h3>{{row.summary}} · {{row.uuid}}</h3>
        <h4>Attempts</h4>
        {{#hasAttempts}}<ol class="attempts">{{#attempts}}<li><time>{{date}}</time> <span class="badge {{#succeeded}}good{{/succeeded}}{{^succeeded}}bad{{/succeeded}}">{{result}}</span>{{#status}} {{status}}{{/status}}{{#response}}<pre class="response">{{response}}</pre>{{/response}}</li>{{/attempts}}</ol>{{/hasAttempts}}
        {{^hasAttempts}}<p class="empty">Not sent yet{{#row.nextAttemptDate}}: due <time>{{row.nextAttemptDate}}</time>{{/row.nextAttemptDate}}.</p>{{/hasAttempts}}
      </div>
      <div class="panel">
        <h3>Payload (signedPayload, decoded)</h3>
        <pre data-notification-payload>{{payload}}</pre>
      </div>
    </div>
    """

    private static let catalog = """
    <h2 id="catalog-title">Products and accounts</h2>
    <div class="table-wrap">
    <table>
      <caption>Products</caption>
      <thead><tr><th scope="col">Product</th><th scope="col">Type</th><th scope="col">Price</th><th scope="col">Group</th><th scope="col">Period</th></tr></thead>
      <tbody>{{#products}}<tr><td>{{referenceName}}<small>{{id}}</small></td><td>{{type}}</td><td>{{price}}</td><td>{{group}}</td><td>{{period}}</td></tr>{{/products}}</tbody>
    </table>
    </div>
    {{^hasProducts}}<p class="empty">This store sells nothing: start it with --config, or give the tenant a catalog.</p>{{/hasProducts}}
    <div class="table-wrap">
    <table>
      <caption>Accounts</caption>
      <thead><tr><th scope="col">Account</th><th scope="col">Storefront</th><th scope="col">Can pay</th><th scope="col">Family</th></tr></thead>
      <tbody>{{#accounts}}<tr><td>{{id}}</td><td>{{storefront}}</td><td>{{#canMakePayments}}yes{{/canMakePayments}}{{^canMakePayments}}no{{/canMakePayments}}</td><td>{{family}}</td></tr>{{/accounts}}</tbody>
    </table>
    </div>
    {{^hasAccounts}}<p class="empty">No accounts yet: one appears with its first purchase.</p>{{/hasAccounts}}
    """
}
