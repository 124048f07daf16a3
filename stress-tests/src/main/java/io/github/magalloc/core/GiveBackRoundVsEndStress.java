package io.github.magalloc.core;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Protocol 9 (making room), a round against a magazine's end: a thread making room asks a thread magazine to give back
 * ({@link ThreadMagazine#askToGiveBack}) while the magazine ends. An ended magazine's owner never answers, so whoever
 * comes last answers for it: the end, if the request was there when it looked, else the asker, who looks at the owner
 * id after publishing its request (Dekker's handshake on the round field and the owner id). The end's actor is the
 * handshake's half of {@link ThreadMagazine#end}: the volatile store of the owner id that publishes the hand-over,
 * then the answer (the hand-over's work between them changes neither). The round must be answered exactly once, else
 * the asker waits for an answer that never comes (until its deadline) or counts one twice. Planted "the asker does not
 * look again": the round stays unanswered.
 */
@JCStressTest
@Description("a shortage asks a thread magazine to give back while the magazine ends")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "asked before the end; answered once")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the magazine had ended: not asked")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "asked, never answered: the asker waits until its deadline")
@Outcome(expect = FORBIDDEN, desc = "answered twice, or counted wrongly")
@State
public class GiveBackRoundVsEndStress {
    private final MemoryPool pool = StressFixtures.newPool();
    private final ThreadMagazine magazine = StressFixtures.ownedMagazine(pool);
    private final GiveBackRound round = new GiveBackRound(new Thread());
    private int asked;

    @Actor
    public void shortageAsks() {
        asked = magazine.askToGiveBack(round) ? 1 : 0;
    }

    @Actor
    public void threadEnds() {
        magazine.publishEnded(new EndedMagazine(magazine));
        magazine.answerIfAsked();
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = asked;
        r.r2 = round.unanswered();
    }
}
