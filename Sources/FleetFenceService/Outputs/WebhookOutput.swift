/// The webhooks: their rows are queued in the journal in the alerts' own transaction, so all
/// this output does once a batch is committed is wake the workers whose queues it added to
/// (docs/webhooks.md "Webhooks").
struct WebhookOutput: Output {
    let dispatcher: WebhookDispatcher

    init(_ dispatcher: WebhookDispatcher) { self.dispatcher = dispatcher }

    func committed(_ steps: [Effects]) {
        var queued = Set<String>()
        for step in steps { for alert in step.changes.alerts { queued.formUnion(alert.webhooks) } }
        if !queued.isEmpty { dispatcher.committed(queued) }
    }
}
