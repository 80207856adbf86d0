package dynamo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/agentplatform/workspaceapi/shared/workspace"
)

// ErrChatNotFound is the 404 of a chat that does not exist for the agent.
var ErrChatNotFound = workspace.NotFound("chat not found")

// Positions in an agent-data event's transaction (applyEvent).
const (
	txMarker = iota
	txAgent
	txEntity
)

// applyEvent writes an agent-data event's items in one transaction: the
// event's marker (attribute_not_exists), a ConditionCheck that the agent
// exists, then items, of which the first may carry a condition of its own
// (its entity must not exist yet). A marker already there means an earlier
// delivery applied the event; an entity already there means another event
// stored the same entity: both are success, nothing is written twice.
func (s *Store) applyEvent(ctx context.Context, ws, agent, eventID, eventType string, now time.Time, items []types.TransactWriteItem) error {
	marker, err := s.putNew(eventItem{keys: keys{PK: eventPK(ws, eventID), SK: skEvent, Entity: typeEvent,
		TTL: epoch(now.Add(EventDedupWindow))}, Type: eventType})
	if err != nil {
		return err
	}
	agentExists, err := s.check(key(wsPK(ws), agentSK(agent)), expression.AttributeExists(expression.Name(attrPK)))
	if err != nil {
		return err
	}
	failed, err := s.transact(ctx, append([]types.TransactWriteItem{marker, agentExists}, items...))
	switch {
	case err != nil:
		return err
	case slices.Contains(failed, txMarker):
		return nil
	case slices.Contains(failed, txAgent):
		return workspace.ErrAgentNotFound
	case len(failed) == 1 && failed[0] == txEntity:
		return nil
	case len(failed) > 0:
		return fmt.Errorf("%s transaction: conditions failed on items %v", eventType, failed)
	}
	return nil
}

// PutChatMessage applies a chat.message event exactly once: the chat's
// fields the event gives are SET on the chat item (its creditsTotal is left
// to the usage ingest), createdDate when not given is the first stored
// message's time, and the message is Put in parts (a redelivered message id
// overwrites itself with the same content).
func (s *Store) PutChatMessage(ctx context.Context, eventID, ws, agent, chatID string, c workspace.ChatUpdate, m workspace.Message, now time.Time) error {
	upd := expression.Set(expression.Name(attrEntity), expression.Value(typeChat)).
		Set(expression.Name(attrID), expression.Value(chatID)).
		Set(expression.Name(attrAgentID), expression.Value(agent))
	if c.CreatedDate.IsZero() {
		upd = upd.Set(expression.Name("createdDate"), expression.IfNotExists(expression.Name("createdDate"), expression.Value(storedTime(m.TS))))
	} else {
		upd = upd.Set(expression.Name("createdDate"), expression.Value(storedTime(c.CreatedDate)))
	}
	for name, v := range map[string]*string{"shortDesc": c.ShortDesc, "effort": c.Effort, "llmModel": c.LLMModel,
		"llmResolvedModel": c.LLMResolvedModel, "transportType": c.TransportType} {
		if v != nil {
			upd = upd.Set(expression.Name(name), expression.Value(*v))
		}
	}
	if c.Starred != nil {
		upd = upd.Set(expression.Name("starred"), expression.Value(*c.Starred))
	}
	chat, err := s.update(key(agentDataPK(ws, agent), chatSK(chatID)), upd, nil)
	if err != nil {
		return err
	}
	items := []types.TransactWriteItem{chat}
	for _, p := range toMessageParts(ws, agent, chatID, m) {
		raw, err := marshal(p)
		if err != nil {
			return err
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: raw}})
	}
	return s.applyEvent(ctx, ws, agent, eventID, "chat.message", now, items)
}

// PutDiaryEntry applies a diary.entry event exactly once: the entry (new:
// an entry already stored with the same time and id is not counted again)
// and its day's count in its month's summary.
func (s *Store) PutDiaryEntry(ctx context.Context, eventID, ws string, e workspace.DiaryEntry, now time.Time) error {
	entry, err := s.putNew(toDiaryItem(ws, e))
	if err != nil {
		return err
	}
	upd := expression.Set(expression.Name(attrEntity), expression.Value(typeDiaryMonth)).
		Add(expression.Name(spentAttr(e.Timestamp.UTC().Day())), expression.Value(1))
	month, err := s.update(key(agentDataPK(ws, e.AgentID), diaryMonthSK(workspace.MonthKey(e.Timestamp))), upd, nil)
	if err != nil {
		return err
	}
	return s.applyEvent(ctx, ws, e.AgentID, eventID, "diary.entry", now, []types.TransactWriteItem{entry, month})
}

// PutMetricRecord applies a metric.recorded event exactly once: the record
// (new: one already stored with the same time and id is not counted again),
// its UTC day's summary and the metric's all-time count.
func (s *Store) PutMetricRecord(ctx context.Context, eventID, ws, agent string, r workspace.MetricRecord, now time.Time) error {
	record, err := s.putNew(toRecordItem(ws, agent, r))
	if err != nil {
		return err
	}
	var t workspace.MetricTotals
	t.AddRecord(r)
	dayUpd := expression.Set(expression.Name(attrEntity), expression.Value(typeMetricDay)).
		Add(expression.Name(attrCount), expression.Value(t.Count)).
		Add(expression.Name(attrValueCount), expression.Value(t.ValueCount)).
		Add(expression.Name(attrSum), expression.Value(t.Sum))
	day, err := s.update(key(metricPK(ws, agent, r.Metric), metricDaySK(workspace.DayKey(r.OccurredAt))), dayUpd, nil)
	if err != nil {
		return err
	}
	totUpd := expression.Set(expression.Name(attrEntity), expression.Value(typeMetricTotal)).
		Add(expression.Name(attrCount), expression.Value(1))
	total, err := s.update(key(metricPK(ws, agent, r.Metric), skMetricTotal), totUpd, nil)
	if err != nil {
		return err
	}
	return s.applyEvent(ctx, ws, agent, eventID, "metric.recorded", now, []types.TransactWriteItem{record, day, total})
}

// queryItems runs a Query over pk with sort keys in [lo, hi] (inclusive,
// as strings), in order or newest first, reading at most limit items (0:
// all), and decodes each into an I.
func queryItems[I any](ctx context.Context, s *Store, index, pkAttr, pk, skAttr, lo, hi string, newestFirst bool, limit int, what string) ([]I, error) {
	in, err := s.keyQuery(index, expression.Key(pkAttr).Equal(expression.Value(pk)).
		And(expression.Key(skAttr).Between(expression.Value(lo), expression.Value(hi))))
	if err != nil {
		return nil, err
	}
	in.ScanIndexForward = aws.Bool(!newestFirst)
	if index == "" {
		in.ConsistentRead = aws.Bool(true)
	}
	if limit > 0 {
		got, _, err := queryPage(ctx, s, in, nil, limit, what, func(i I) I { return i })
		return got, err
	}
	return queryAll(ctx, s, in, what, func(i I) I { return i })
}

// Chat reads a chat of the agent with every message, oldest first, their
// bodies reassembled from their parts. A chat known only through usage (no
// message yet) does not exist. A chat whose messages exceed
// workspace.MaxChatBytes is a KindTooLarge error, found before more is read.
func (s *Store) Chat(ctx context.Context, ws, agent, chatID string) (workspace.Chat, error) {
	meta, found, err := getItem[chatItem](ctx, s, key(agentDataPK(ws, agent), chatSK(chatID)), "chat")
	if err != nil {
		return workspace.Chat{}, err
	}
	if !found || meta.AgentID == "" {
		return workspace.Chat{}, ErrChatNotFound
	}
	chat := workspace.Chat{ChatMeta: meta.domain(), Messages: []workspace.Message{}}
	in, err := s.keyQuery("", expression.Key(attrPK).Equal(expression.Value(chatPK(ws, agent, chatID))))
	if err != nil {
		return workspace.Chat{}, err
	}
	in.ConsistentRead, in.Limit = aws.Bool(true), aws.Int32(queryPageItems)
	p := dynamodb.NewQueryPaginator(s.db, in)
	size := 0
	var cur *workspace.Message
	var body []byte
	curBase := "" // the sort key of the current message's first part
	flush := func() {
		if cur != nil {
			cur.Body = body
			chat.Messages = append(chat.Messages, *cur)
			cur, body = nil, nil
		}
	}
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return workspace.Chat{}, fmt.Errorf("query chat messages: %w", err)
		}
		for _, raw := range page.Items {
			var it messagePartItem
			if err := unmarshal(raw, &it); err != nil {
				return workspace.Chat{}, err
			}
			size += len(it.Body)
			if size > workspace.MaxChatBytes {
				return workspace.Chat{}, workspace.TooLarge("this chat holds more than the %d MB of messages the API serves", workspace.MaxChatBytes>>20)
			}
			if it.Part == 0 {
				flush()
				m := it.message()
				cur, body, curBase = &m, append([]byte(nil), it.Body...), it.SK
				continue
			}
			// A part continues the message whose first part's key it
			// shares but for the part number.
			if cur != nil && len(it.SK) == len(curBase) && it.SK[:len(it.SK)-3] == curBase[:len(curBase)-3] {
				body = append(body, it.Body...)
			}
		}
	}
	flush()
	workspace.SortMessages(chat.Messages)
	return chat, nil
}

// DiaryDay reads the agent's diary entries of the UTC day of day, oldest first.
func (s *Store) DiaryDay(ctx context.Context, ws, agent string, day time.Time) ([]workspace.DiaryEntry, error) {
	from := workspace.DayStart(day)
	// The last day's range ends at the last instant, not in year 10000.
	to := workspace.NotAfterLatest(from.Add(workspace.Day))
	its, err := queryItems[diaryItem](ctx, s, "", attrPK, agentDataPK(ws, agent), attrSK,
		prefixDiary+storedTime(from), prefixDiary+storedTime(to), false, 0, "diary day")
	return diaryEntries(its), err
}

// DiaryConversation reads the agent's diary entries of one conversation,
// oldest first, from GSI1.
func (s *Store) DiaryConversation(ctx context.Context, ws, agent, conversationID string) ([]workspace.DiaryEntry, error) {
	its, err := queryItems[diaryItem](ctx, s, IndexGSI1, attrGSI1PK, conversationGSI1PK(ws, agent, conversationID), attrGSI1SK,
		prefixDiary, prefixDiary+"\uffff", false, 0, "diary conversation")
	return diaryEntries(its), err
}

func diaryEntries(its []diaryItem) []workspace.DiaryEntry {
	out := make([]workspace.DiaryEntry, len(its))
	for i, it := range its {
		out[i] = it.domain()
	}
	return out
}

// DiaryMonth returns the days of the UTC month starting at month that have
// diary entries, ascending, with their counts: one GetItem.
func (s *Store) DiaryMonth(ctx context.Context, ws, agent string, month time.Time) ([]workspace.DiaryDay, error) {
	raw, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true),
		Key: key(agentDataPK(ws, agent), diaryMonthSK(workspace.MonthKey(month)))})
	if err != nil {
		return nil, fmt.Errorf("get diary month: %w", err)
	}
	u, err := loadMonthUsage(raw.Item)
	if err != nil {
		return nil, err
	}
	return workspace.DiaryMonthDays(month, u.Spent), nil
}

// KeyMetrics reads the figures of each of the agent's key metrics for p and
// the period before it: per metric, one Query of the day summaries of both
// periods' whole days, one Query per stretch of partial days (the records
// around each boundary), a GetItem of the all-time total, the newest record
// ever (lastRecordedAt) and, when recent > 0, the newest recent records of
// p. Its cost grows with the days of the period, not with its records. None
// of these reads needs another's answer, so all of them, of every metric,
// are sent at once (readAll): the report waits for about one round trip,
// not for each in turn.
func (s *Store) KeyMetrics(ctx context.Context, ws string, agent workspace.Agent, p workspace.Period, recent int) (workspace.KeyMetricsReport, error) {
	rep := workspace.KeyMetricsReport{AgentID: agent.ID, AgentName: agent.Name, Period: p, Metrics: []workspace.MetricFigures{}}
	var reads []read
	figures := make([]func() (workspace.MetricFigures, int), len(agent.KeyMetrics))
	for i, def := range agent.KeyMetrics {
		var rs []read
		rs, figures[i] = s.metricReads(ws, agent.ID, def, p, recent)
		reads = append(reads, rs...)
	}
	if err := readAll(ctx, reads...); err != nil {
		return rep, err
	}
	for _, f := range figures {
		m, read := f()
		rep.Metrics = append(rep.Metrics, m)
		rep.ItemsRead += read
	}
	return rep, nil
}

// metricReads returns the reads of one metric's figures (KeyMetrics) and
// the function that makes its figures, and counts the items read, once they
// have all been read. The figures are added up in the reads' order, whatever
// order they were answered in.
func (s *Store) metricReads(ws, agent string, def workspace.KeyMetricDefinition, p workspace.Period, recent int) (
	[]read, func() (workspace.MetricFigures, int)) {
	pk := metricPK(ws, agent, def.Name)
	plan := p.Reads()
	var (
		days               []metricSumItem
		stretches          = make([][]recordItem, len(plan.Partial))
		total              metricSumItem
		totalFound         bool
		newest, recentRecs []recordItem
		reads              []read
	)
	if lo, hi := plan.Days.Start, plan.Days.End; lo.Before(hi) {
		reads = append(reads, func(ctx context.Context) (err error) {
			days, err = queryItems[metricSumItem](ctx, s, "", attrPK, pk, attrSK,
				metricDaySK(workspace.DayKey(lo)), metricDaySK(workspace.DayKey(hi.Add(-workspace.Day))), false, 0, "metric days")
			return err
		})
	}
	for i, stretch := range plan.Partial {
		reads = append(reads, func(ctx context.Context) (err error) {
			stretches[i], err = queryItems[recordItem](ctx, s, "", attrPK, pk, attrSK,
				prefixRecord+storedTime(stretch.Start), prefixRecord+storedTime(stretch.End), false, 0, "metric records")
			return err
		})
	}
	reads = append(reads, func(ctx context.Context) (err error) {
		total, totalFound, err = getItem[metricSumItem](ctx, s, key(pk, skMetricTotal), "metric total")
		return err
	}, func(ctx context.Context) (err error) {
		newest, err = queryItems[recordItem](ctx, s, "", attrPK, pk, attrSK, prefixRecord, prefixRecord+"\uffff", true, 1, "newest record")
		return err
	})
	if recent > 0 && p.Start.Before(p.End) {
		reads = append(reads, func(ctx context.Context) (err error) {
			recentRecs, err = queryItems[recordItem](ctx, s, "", attrPK, pk, attrSK,
				prefixRecord+storedTime(p.Start), prefixRecord+storedTime(p.End), true, recent, "recent records")
			return err
		})
	}
	return reads, func() (workspace.MetricFigures, int) {
		f := workspace.MetricFigures{Definition: def, Recent: []workspace.MetricRecord{}}
		read := len(days)
		for _, d := range days {
			if day, ok := dayOfMetricSK(d.SK); ok {
				plan.AddDay(&f, day, d.totals())
			}
		}
		for _, recs := range stretches {
			read += len(recs)
			for _, ri := range recs {
				plan.AddRecord(&f, ri.domain())
			}
		}
		if totalFound {
			read++
			f.TotalCount = total.Count
		}
		read += len(newest)
		if len(newest) == 1 {
			f.LastRecordedAt = loadedTime(newest[0].OccurredAt)
		}
		read += len(recentRecs)
		for _, ri := range recentRecs {
			f.Recent = append(f.Recent, ri.domain())
		}
		return f, read
	}
}

// AllAgents returns every agent of ws, or of its team team when team is
// set, paging through them.
func (s *Store) AllAgents(ctx context.Context, ws, team string) ([]workspace.Agent, error) {
	var all []workspace.Agent
	after := ""
	for {
		page, more, err := s.AgentPage(ctx, ws, team, after, 1000)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if !more || len(page) == 0 {
			return all, nil
		}
		after = page[len(page)-1].ID
	}
}
