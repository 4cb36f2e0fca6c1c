package examsrv_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/pkg/client"
)

// showcaseSchool is the school of the showcase exams.
const showcaseSchool = "SMA Negeri 2 Sleman"

// showcaseRender renders markdown as the portal does, media through media.
func showcaseRender(t testing.TB, media func(string) (richtext.Media, bool)) func(string) string {
	return func(src string) string {
		t.Helper()
		res, err := richtext.Render(richtext.Markdown, src, richtext.Options{Media: media})
		if err != nil || len(res.Problems) > 0 {
			t.Fatalf("render %q: %v %v", src, err, res.Problems)
		}
		return res.HTML
	}
}

// showcaseChoice is a single choice question whose options are a, b, c, ...
// in the order given.
func showcaseChoice(render func(string) string, id, text string, options ...string) client.PackageQuestion {
	q := client.PackageQuestion{ID: id, Type: "single_choice", Format: "markdown", Text: text, HTML: render(text), Points: 1}
	for i, o := range options {
		q.Options = append(q.Options, client.QuestionOption{ID: string(rune('a' + i)), Text: o, HTML: render(o)})
	}
	return q
}

// showcaseBase is testPackage with a realistic school and student s1 (Dewi
// Anggraini, XII MIPA 2), in the newest format.
func showcaseBase(t testing.TB) *client.Package {
	t.Helper()
	p := testPackage(t, 2)
	p.Format, p.SchoolName = 4, showcaseSchool
	p.Students[0].Nama, p.Students[0].Kelas = "Dewi Anggraini", "XII MIPA 2"
	p.Students[1].Nama, p.Students[1].Kelas = "Bagus Prasetyo", "XII MIPA 2"
	return p
}

// mathShowcase is a Matematika exam of twenty questions as a school writes
// it: a linear equation, a right triangle with formula options, a
// numeric question and a cloze question among arithmetic ones.
func mathShowcase(t testing.TB) *client.Package {
	t.Helper()
	render := showcaseRender(t, nil)
	p := showcaseBase(t)
	e := &p.Exams[0]
	e.Title, e.Subject, e.DurationMinutes = "Matematika", "MTK", 90
	e.Questions = []client.PackageQuestion{
		showcaseChoice(render, "lin", "Nilai $x$ yang memenuhi persamaan $3x - 7 = 2x + 5$ adalah ...",
			"$x = -12$", "$x = -2$", "$x = 2$", "$x = 12$", "$x = 35$"),
		showcaseChoice(render, "sin", "Diketahui segitiga $ABC$ siku-siku di $B$ dengan panjang $AB = 6$ cm dan $BC = 8$ cm.\n\n"+
			"$$AC = \\sqrt{AB^2 + BC^2}$$\n\nNilai $\\sin A + \\cos A$ adalah ...",
			"$\\dfrac{5}{7}$", "$\\dfrac{4}{5}$", "$\\dfrac{6}{5}$", "$\\dfrac{7}{5}$", "$\\dfrac{12}{25}$"),
		{ID: "tangga", Type: client.Numeric, Format: "markdown", Points: 2,
			Text: "Sebuah tangga yang panjangnya 5 m disandarkan pada tembok. Jarak kaki tangga ke tembok 3 m. Berapa meter tinggi ujung atas tangga dari lantai?",
			HTML: render("Sebuah tangga yang panjangnya 5 m disandarkan pada tembok. Jarak kaki tangga ke tembok 3 m. Berapa meter tinggi ujung atas tangga dari lantai?")},
		{ID: "spl", Type: client.Cloze, Format: "markdown", Points: 2,
			Text:   "Penyelesaian sistem persamaan $x + y = 10$ dan $x - y = 4$ adalah $x =$ [[x]] dan $y =$ [[y]].",
			HTML:   render("Penyelesaian sistem persamaan $x + y = 10$ dan $x - y = 4$ adalah $x =$ [[x]] dan $y =$ [[y]]."),
			Blanks: []client.PackageBlank{{ID: "x", Kind: client.BlankNumber, Points: 1}, {ID: "y", Kind: client.BlankNumber, Points: 1}}},
	}
	for i := len(e.Questions); i < 20; i++ {
		a, b := 12+3*i, 4+i%7
		e.Questions = append(e.Questions, showcaseChoice(render, fmt.Sprintf("h%d", i), fmt.Sprintf("Hasil dari $%d \\times %d$ adalah ...", a, b),
			fmt.Sprint(a*b-b), fmt.Sprint(a*b), fmt.Sprint(a*b+a), fmt.Sprint(a*b+10), fmt.Sprint(a*(b+2))))
	}
	return p
}

// englishShowcase is a Bahasa Inggris exam: two listening questions (a
// conversation played at most twice) and three questions on a reading
// passage, among others, with its audio in a media store.
func englishShowcase(t testing.TB) (*client.Package, *mediastore.Store) {
	t.Helper()
	store, err := mediastore.Open(filepath.Join(t.TempDir(), "media"))
	if err != nil {
		t.Fatal(err)
	}
	audio := sum(mediaFiles["audio"])
	if err := os.WriteFile(filepath.Join(filepath.Dir(store.PartPath(audio)), audio), mediaFiles["audio"], 0o600); err != nil {
		t.Fatal(err)
	}
	render := showcaseRender(t, func(sha string) (richtext.Media, bool) {
		return richtext.Media{URL: "media/" + sha, Audio: true}, sha == audio
	})
	p := showcaseBase(t)
	e := &p.Exams[0]
	e.Title, e.Subject, e.DurationMinutes = "Bahasa Inggris", "BIG", 120
	e.Media = []client.PackageMedia{{SHA256: audio, Type: "audio/mpeg", Kind: "audio", Size: int64(len(mediaFiles["audio"]))}}
	listen := showcaseChoice(render, "l1", "**Listening section.** You will hear a conversation between Rani and the school librarian.\n\n"+
		"![Conversation 1: Rani and the librarian](media:"+audio+")\n\nWhat does Rani want to do?",
		"Return a novel she borrowed last week", "Borrow a dictionary for her English class",
		"Ask where the computer room is", "Pay a fine for a late book", "Join the school's reading club")
	listen.PlayLimit = 2
	listen2 := showcaseChoice(render, "l2", "**Listening section.** Listen to the conversation again.\n\n"+
		"![Conversation 1: Rani and the librarian](media:"+audio+")\n\nWhen must Rani give the book back?",
		"On Monday", "On Wednesday", "On Friday", "Next month", "After the exam")
	listen2.PlayLimit = 2
	e.Questions = []client.PackageQuestion{listen, listen2}
	passage := "The Sekolah Hijau programme started at our school two years ago. Every class looks after a small garden behind " +
		"the sports field, and every Friday morning the students water the plants, pull out the weeds and write down how much " +
		"the vegetables have grown.\n\n" +
		"At first, many students thought the programme was only extra work. However, after the first harvest they changed their " +
		"minds. The canteen bought the spinach and chillies from the gardens, and the money was used to buy new books for the " +
		"library.\n\n" +
		"This year the programme has grown. The students now collect plastic bottles from every classroom and turn them into " +
		"pots for seedlings. The headmaster says the school uses half as much plastic as it did before the programme began, " +
		"and other schools in the district have visited to learn from it."
	e.Stimuli = []client.Stimulus{{ID: "hijau", Title: "Read the following text and answer the questions.", Format: "markdown", Text: passage, HTML: render(passage)}}
	reading := []client.PackageQuestion{
		showcaseChoice(render, "r1", "What is the text mainly about?",
			"A school garden programme and its results", "How to grow spinach at home", "The history of the school library",
			"A competition between schools in the district", "The headmaster's plan to build a new canteen"),
		showcaseChoice(render, "r2", "Why did many students change their minds about the programme?",
			"The headmaster gave them extra marks", "The harvest was sold and the money bought library books",
			"They no longer had to work on Fridays", "Other schools visited their garden", "The canteen gave them free lunch"),
		showcaseChoice(render, "r3", "The word \"it\" in the last sentence refers to ...",
			"the school", "the plastic", "the programme", "the district", "the headmaster"),
	}
	for i := range reading {
		reading[i].Stimulus = "hijau"
	}
	e.Questions = append(e.Questions, reading...)
	e.Questions = append(e.Questions,
		showcaseChoice(render, "g1", "My sister ... to school by bus every day.", "go", "goes", "going", "gone", "is go"),
		showcaseChoice(render, "g2", "\"Would you like some more tea?\" \"..., thank you. I've had enough.\"",
			"Yes, please", "No", "Sure", "I'd love to", "Of course"),
		showcaseChoice(render, "g3", "The students ... the classroom before the bell rang yesterday.",
			"clean", "cleans", "had cleaned", "are cleaning", "will clean"))
	return p, store
}

// TestBrowserShowcase opens a Matematika exam and a Bahasa Inggris exam
// as a student sees them, at 1280 and 390 px: a question with a display
// formula and formula options is answered and saved, a listening
// question shows its play button with both plays left, and a passage
// shows beside (or above) its questions. With UPDATE_SCREENSHOTS=1 it
// saves docs/labagent/showcase-{math,listening,reading}[-phone].png, the
// pictures of the README.
func TestBrowserShowcase(t *testing.T) {
	for _, width := range []int{1280, 390} {
		suffix := map[int]string{1280: "", 390: "-phone"}[width]
		school := func(o *examsrv.Options) { o.SchoolName = showcaseSchool }
		t.Run(fmt.Sprint(width, "/math"), func(t *testing.T) {
			p, l := openExam(t, mathShowcase(t), 2, width, 800, school)
			p.waitTrue("the math font loaded", `document.fonts.check('16px "STIX Two Math"') || (document.fonts.load('16px "STIX Two Math"'), false)`)
			total := p.count(".nav-item")
			if total != 20 {
				t.Fatalf("%d questions in the number grid, want 20", total)
			}
			// Two questions answered, one of them marked Ragu-ragu.
			p.showQuestionWith("memenuhi persamaan")
			p.chooseOption("d")
			p.storedAnswer(l, "lin", "d")
			p.do("mark it Ragu-ragu", chromedp.Click(chromedp.ID("flag-toggle")))
			p.waitTrue("the flag is saved", `document.getElementById('flag-toggle').getAttribute('aria-pressed') === 'true'`)
			p.showQuestionWith("siku-siku")
			if got := p.count("#question-text math"); got < 5 {
				t.Errorf("the triangle question has %d formulas", got)
			}
			if got := p.count(`#question-text math[display="block"]`); got != 1 {
				t.Errorf("the triangle question has %d display formulas, want 1", got)
			}
			if got := p.count("#answer-area .option math mfrac"); got != 5 {
				t.Errorf("%d options show a fraction, want 5", got)
			}
			p.chooseOption("d")
			p.storedAnswer(l, "sin", "d")
			p.showcaseShot("showcase-math" + suffix)
		})
		t.Run(fmt.Sprint(width, "/english"), func(t *testing.T) {
			pkg, store := englishShowcase(t)
			p, _ := openExam(t, pkg, 2, width, 800, school, func(o *examsrv.Options) { o.Media = store })
			p.showQuestionWith("What does Rani want")
			if p.count("#question-text .play-button") != 1 || p.count("#question-text audio[controls]") != 0 {
				t.Fatal("the listening question does not show its own play button")
			}
			if got := p.text("#question-text .play-note"); !strings.Contains(got, "Sisa 2 dari 2") {
				t.Errorf("the play note says %q", got)
			}
			p.showcaseShot("showcase-listening" + suffix)

			p.showQuestionWith("mainly about")
			if p.text("#stimulus-title") != "Read the following text and answer the questions." || p.count("#stimulus-pane:not(.hidden) #stimulus-text p") != 3 {
				t.Fatal("the passage does not show with its title and three paragraphs")
			}
			layout := p.eval("the layout", `(function () {
				var s = document.getElementById('stimulus-pane').getBoundingClientRect();
				var q = document.getElementById('question-panel').getBoundingClientRect();
				return s.right <= q.left ? 'beside' : s.bottom <= q.top ? 'above' : 'other';
			}())`, false)
			if want := map[int]string{1280: "beside", 390: "above"}[width]; layout != want {
				t.Errorf("the passage is %s the question, want %s", layout, want)
			}
			p.chooseOption("a")
			p.eval("the page's top", `window.scrollTo(0, 0), ''`, false)
			p.showcaseShot("showcase-reading" + suffix)
			if got := p.eval("fits", `String(document.documentElement.scrollWidth <= window.innerWidth)`, false); got != "true" {
				t.Errorf("the page scrolls sideways at %d px", width)
			}
			p.checkClean()
		})
	}
}

// chooseOption picks option id of the question shown and waits until it
// is saved.
func (p *studentPage) chooseOption(id string) {
	p.t.Helper()
	p.do("choose option "+id, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#answer-area .option[data-option-id=%q]`, id))))
	p.waitTrue("the answer is saved", `document.getElementById('save-status').textContent === 'Tersimpan'`)
}

// showcaseShot takes shot name with the page at its top and no focus
// ring, once the scroll and the fonts are drawn.
func (p *studentPage) showcaseShot(name string) {
	p.t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	p.eval("the page's top", `window.scrollTo(0, 0), document.activeElement.blur(), ''`, false)
	time.Sleep(300 * time.Millisecond)
	p.shot(name)
}
