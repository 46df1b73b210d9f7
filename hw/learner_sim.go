package hw

// SimulateLearner returns the cycle-accurate schedule of one learner
// pipeline of d for batch samples (000 §VI-A2): a synchronous pipeline in
// which every stage advances once per T_max cycles, so sample j occupies
// stage i during [(j+i) T_max, (j+i) T_max + T_i), followed by the weight
// update (one more stage, "WU") for T_WU cycles. Stages faster than T_max
// show as partly idle. Its length equals d.CyclesFor(batch); the DP
// pipelines run the same schedule in parallel. names labels the stages (from
// LearnerStages) and may be nil.
func SimulateLearner(d *LearnerDesign, batch int, names []string) Timeline {
	n := len(d.StageCycles)
	tl := NewTimeline(n + 1)
	for i := range n {
		if i < len(names) {
			tl.Stages[i].Name = names[i]
		}
	}
	tl.Stages[n].Name = "WU"
	pi := int64(ceilDiv(batch, d.DP))
	for i := range n {
		st := &tl.Stages[i]
		if d.StageCycles[i] == d.TMax {
			st.Mark(int64(i)*d.TMax, (int64(i)+pi)*d.TMax)
			continue
		}
		st.Busy = make([]Interval, 0, pi)
		for j := range pi {
			s := (j + int64(i)) * d.TMax
			st.Mark(s, s+d.StageCycles[i])
		}
	}
	end := (pi + int64(n) - 1) * d.TMax
	tl.Stages[n].Mark(end, end+d.WUCycles)
	tl.Close(end + d.WUCycles)
	return tl
}
