package env

import (
	"math"
	"math/rand/v2"
	"time"
)

// Pong-workload geometry and defaults. The frame is the 84×84 grayscale of
// the standard Atari preprocessing (Mnih et al. 2015: max over two frames,
// grayscale, resize to 84×84, 4 frames stacked, 4 emulator frames per
// step); the pixel values and sizes below approximate Pong's and are rlx's
// assumptions (docs/env.md).
const (
	pongSize       = 84
	pongStack      = 4
	pongFrame      = pongSize * pongSize
	pongBackground = 87  // court
	pongWall       = 236 // top and bottom walls, ball
	pongAgentShade = 147 // right paddle (the agent's)
	pongOppShade   = 148 // left paddle
	pongTop        = 14  // first court row below the top wall
	pongBottom     = 77  // last court row above the bottom wall
	pongPaddleH    = 8
	pongPaddleW    = 2
	pongOppX       = 8
	pongAgentX     = 74
	pongBall       = 2
	pongPaddleStep = 3 // pixels per agent step
	pongOppStep    = 2 // the opponent is slower, so points are won both ways
	pongWinScore   = 21
	// pongStepCost: seed 004 §I-C cites EnvPool at 1 million Atari frames
	// per second on 256 CPU threads, 256 µs per frame per thread; one agent
	// step is 4 frames (frame skip), about 1 ms.
	pongStepCost = 1024 * time.Microsecond
)

// Pong is Pong-workload: a toy Pong drawn into the observation Atari agents
// see, 4 stacked 84×84 grayscale frames, stored as float32 values that are
// whole numbers in [0, 255] (uint8 pixel values; the network divides by
// 255, as CleanRL's does). Six actions as in ALE Pong: NOOP, FIRE, RIGHT
// (up), LEFT (down), RIGHTFIRE, LEFTFIRE. A point won is +1, lost -1; the
// game ends when a side reaches 21; truncated at 27000 steps (108000
// frames). The frames are sparse and temporally correlated like the real
// ones, which is what matters for replay and convolution costs. ITS
// RETURNS MEAN NOTHING about Atari Pong.
type Pong struct {
	episode
	rng            *rand.Rand
	frames         [pongStack * pongFrame]float32
	ballX, ballY   float64
	ballVX, ballVY float64
	agentY, oppY   float64 // top rows of the paddles
	agentScore     int
	oppScore       int
	busy           bool
}

func newPong(rng *rand.Rand, o *options) *Pong {
	dim := pongStack * pongFrame
	low, high := make([]float32, dim), make([]float32, dim)
	for i := range high {
		high[i] = 255
	}
	s := Spec{
		ID:              "Pong-workload",
		Obs:             Box{Shape: []int{pongStack, pongSize, pongSize}, Low: low, High: high},
		Act:             ActionSpace{N: 6},
		MaxEpisodeSteps: 27000,
		RewardThreshold: math.NaN(),
		Workload:        true,
		StepCost:        pongStepCost,
	}
	return &Pong{episode: newEpisode(s, o), rng: rng, busy: o.busy}
}

// Reset starts a game at 0-0 with a served ball; all four stacked frames
// show the first position.
func (p *Pong) Reset(obs []float32) {
	p.begin(obs)
	p.agentScore, p.oppScore = 0, 0
	mid := float64(pongTop+pongBottom-pongPaddleH) / 2
	p.agentY, p.oppY = mid, mid
	p.serve()
	p.draw(p.frames[(pongStack-1)*pongFrame:])
	for f := 0; f < pongStack-1; f++ {
		copy(p.frames[f*pongFrame:(f+1)*pongFrame], p.frames[(pongStack-1)*pongFrame:])
	}
	copy(obs, p.frames[:])
}

// serve puts the ball in the middle moving toward a random side at a random
// angle.
func (p *Pong) serve() {
	p.ballX = float64(pongSize) / 2
	p.ballY = float64(pongTop) + p.rng.Float64()*float64(pongBottom-pongTop-pongBall)
	p.ballVX = 1.5
	if p.rng.IntN(2) == 0 {
		p.ballVX = -1.5
	}
	p.ballVY = (p.rng.Float64()*2 - 1) * 1.5
}

// Step moves the paddles, advances the ball by one agent step (4 emulator
// frames), scores, shifts the frame stack and draws the new frame.
func (p *Pong) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := p.check(obs, a); err != nil {
		return 0, false, false, err
	}
	var start time.Time
	if p.busy {
		start = time.Now()
	}
	switch a.Index {
	case 2, 4: // RIGHT moves the right paddle up
		p.agentY -= pongPaddleStep
	case 3, 5:
		p.agentY += pongPaddleStep
	}
	p.agentY = clampPaddle(p.agentY)
	// The opponent tracks the ball at a limited speed.
	target := p.ballY - pongPaddleH/2
	p.oppY = clampPaddle(p.oppY + math.Max(-pongOppStep, math.Min(pongOppStep, target-p.oppY)))

	reward := 0.0
	p.ballX += 2 * p.ballVX
	p.ballY += 2 * p.ballVY
	if p.ballY < pongTop {
		p.ballY, p.ballVY = 2*pongTop-p.ballY, -p.ballVY
	}
	if lim := float64(pongBottom - pongBall + 1); p.ballY > lim {
		p.ballY, p.ballVY = 2*lim-p.ballY, -p.ballVY
	}
	switch {
	case p.ballVX > 0 && p.ballX+pongBall >= pongAgentX && p.ballX < pongAgentX+pongPaddleW:
		if hits(p.ballY, p.agentY) {
			p.ballX, p.ballVX = pongAgentX-pongBall, -p.ballVX
			p.ballVY += (p.ballY - p.agentY - pongPaddleH/2) * 0.2 // english
		}
	case p.ballVX < 0 && p.ballX <= pongOppX+pongPaddleW && p.ballX+pongBall > pongOppX:
		if hits(p.ballY, p.oppY) {
			p.ballX, p.ballVX = pongOppX+pongPaddleW, -p.ballVX
			p.ballVY += (p.ballY - p.oppY - pongPaddleH/2) * 0.2
		}
	}
	p.ballVY = math.Max(-2.5, math.Min(2.5, p.ballVY))
	switch {
	case p.ballX >= pongSize:
		p.oppScore++
		reward = -1
		p.serve()
	case p.ballX+pongBall <= 0:
		p.agentScore++
		reward = 1
		p.serve()
	}
	terminated := p.agentScore == pongWinScore || p.oppScore == pongWinScore
	copy(p.frames[:], p.frames[pongFrame:])
	p.draw(p.frames[(pongStack-1)*pongFrame:])
	truncated := p.end(terminated)
	copy(obs, p.frames[:])
	if p.busy {
		spin(start, p.spec.StepCost)
	}
	return reward, terminated, truncated, nil
}

func hits(ballY, paddleY float64) bool {
	return ballY+pongBall > paddleY && ballY < paddleY+pongPaddleH
}

func clampPaddle(y float64) float64 {
	return math.Max(pongTop, math.Min(pongBottom-pongPaddleH+1, y))
}

// draw renders the current state into one 84×84 frame.
func (p *Pong) draw(f []float32) {
	f = f[:pongFrame]
	for i := range f {
		f[i] = pongBackground
	}
	for y := pongTop - 4; y < pongTop; y++ {
		fill(f, 0, y, pongSize, 1, pongWall)
	}
	for y := pongBottom + 1; y < pongBottom+5; y++ {
		fill(f, 0, y, pongSize, 1, pongWall)
	}
	fill(f, pongOppX, int(p.oppY), pongPaddleW, pongPaddleH, pongOppShade)
	fill(f, pongAgentX, int(p.agentY), pongPaddleW, pongPaddleH, pongAgentShade)
	fill(f, int(math.Floor(p.ballX)), int(math.Floor(p.ballY)), pongBall, pongBall, pongWall)
}

// fill paints a w×h rectangle at (x, y), clipped to the frame.
func fill(f []float32, x, y, w, h int, v float32) {
	for yy := max(y, 0); yy < min(y+h, pongSize); yy++ {
		row := f[yy*pongSize : (yy+1)*pongSize]
		for xx := max(x, 0); xx < min(x+w, pongSize); xx++ {
			row[xx] = v
		}
	}
}
